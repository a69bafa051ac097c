#if URLSession
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionAdapter {
    /// The adapter itself, by the name the original Swift Faraday gave it:
    /// `connection.use(handler: URLSessionAdapter.Handler())`.
    public typealias Handler = URLSessionAdapter
}
#endif
