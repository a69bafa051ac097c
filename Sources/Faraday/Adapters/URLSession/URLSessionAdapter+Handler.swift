import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionAdapter {
    /// Installs a ``URLSessionAdapter`` when used (the original Swift Faraday's
    /// `connection.use(handler: URLSessionAdapter.Handler())`).
    public struct Handler: AdapterHandler {
        /// The adapter it installs.
        public let adapter: any Adapter

        /// A handler for a new adapter on `configuration`.
        public init(configuration: URLSessionConfiguration = .ephemeral) {
            adapter = URLSessionAdapter(configuration: configuration)
        }
    }
}
