#if AsyncHTTPClient
import Faraday

extension AsyncHTTPClientAdapter {
    /// The adapter itself, by the name the original Swift Faraday gave adapters:
    /// `connection.use(handler: AsyncHTTPClientAdapter.Handler())`.
    public typealias Handler = AsyncHTTPClientAdapter
}
#endif
