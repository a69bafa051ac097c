import Faraday

extension AsyncHTTPClientAdapter {
    /// Installs an ``AsyncHTTPClientAdapter`` when used: `connection.use(handler:
    /// AsyncHTTPClientAdapter.Handler())`, as the original Swift Faraday installed its adapter.
    public struct Handler: AdapterHandler {
        /// The adapter it installs.
        public let adapter: any Adapter

        /// A handler for a new adapter with `configuration`.
        public init(configuration: Configuration = Configuration()) {
            adapter = AsyncHTTPClientAdapter(configuration: configuration)
        }
    }
}
