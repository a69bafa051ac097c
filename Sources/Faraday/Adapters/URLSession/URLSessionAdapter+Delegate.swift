#if URLSession
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionAdapter {
    /// The sessions' delegate: routes each callback to the bridge of its task. Tasks are told
    /// apart by identity: their identifiers are only unique within one session.
    ///
    /// The methods' signatures are the SDK's, word for word (completion handlers `@Sendable`):
    /// an Objective-C delegate method whose signature differs is silently never called, and
    /// URLSession would then follow redirects or answer challenges on its own.
    final class Delegate: NSObject, URLSessionDataDelegate, Sendable {
        private let bridges = Locked<[ObjectIdentifier: URLSessionTaskBridge]>([:])

        func register(_ bridge: URLSessionTaskBridge, for task: URLSessionTask) {
            bridges.withLock { $0[ObjectIdentifier(task)] = bridge }
        }

        /// Tasks registered and not yet completed.
        var tasksInFlight: Int { bridges.withLock { $0.count } }

        func bridge(_ task: URLSessionTask) -> URLSessionTaskBridge? {
            bridges.withLock { $0[ObjectIdentifier(task)] }
        }

        func urlSession(
            _ session: URLSession,
            dataTask: URLSessionDataTask,
            didReceive response: URLResponse,
            completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
        ) {
            guard let http = response as? HTTPURLResponse else {
                bridge(dataTask)?.fail(FaradayError(.invalidResponse, "The response is not an HTTP response."))
                completionHandler(.cancel)
                return
            }
            bridge(dataTask)?.didReceive(response: http)
            completionHandler(.allow)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            guard let bridge = bridge(dataTask) else { return }
            guard !bridge.didReceive(data: data) else { return }
            let message =
                bridge.streams
                ? "The consumer fell more than \(bridge.maxBufferedBodySize) bytes behind the stream, and URLSession on this platform cannot pause a transfer; consume faster, raise maxBufferedBodySize, or use AsyncHTTPClientAdapter."
                : "The response body is larger than \(bridge.maxBufferedBodySize) bytes; stream it instead."
            bridge.fail(FaradayError(.bodyTooLarge, message))
        }

        func urlSession(
            _ session: URLSession,
            task: URLSessionTask,
            didSendBodyData bytesSent: Int64,
            totalBytesSent: Int64,
            totalBytesExpectedToSend: Int64
        ) {
            bridge(task)?.didSend(totalBytesSent)
        }

        func urlSession(
            _ session: URLSession,
            task: URLSessionTask,
            willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest,
            completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            // Redirects are a middleware's job: hand the 3xx response up the stack.
            completionHandler(nil)
        }

        /// Authentication is a middleware's job: a challenge comes back up as the 401 or 407
        /// response it is. (Server trust, on Apple platforms, is evaluated against the request's
        /// TLS options and pins.)
        func urlSession(
            _ session: URLSession,
            task: URLSessionTask,
            didReceive challenge: URLAuthenticationChallenge,
            completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            #if canImport(Security) && canImport(CryptoKit)
            if challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust {
                return evaluateServerTrust(challenge, task: task, completionHandler: completionHandler)
            }
            // With no credential storage, the default handling delivers the response as it came.
            completionHandler(.performDefaultHandling, nil)
            #else
            // FoundationNetworking waits forever for a credential it has no way to find, and has
            // already taken the response's body: hand the status and headers up as the response,
            // with an empty body, and stop the task.
            if let response = challenge.failureResponse as? HTTPURLResponse,
                let bridge = bridges.withLock({ $0.removeValue(forKey: ObjectIdentifier(task)) })
            {
                bridge.didReceive(response: response)
                bridge.didComplete(error: nil)
            }
            completionHandler(.cancelAuthenticationChallenge, nil)
            #endif
        }

        #if canImport(Darwin)
        /// The HTTP version, from the metrics Apple platforms collect just before a task ends
        /// (FoundationNetworking collects none).
        func urlSession(
            _ session: URLSession,
            task: URLSessionTask,
            didFinishCollecting metrics: URLSessionTaskMetrics
        ) {
            bridge(task)?.didCollect(networkProtocol: metrics.transactionMetrics.last?.networkProtocolName)
        }
        #endif

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            let bridge = bridges.withLock { $0.removeValue(forKey: ObjectIdentifier(task)) }
            // FoundationNetworking never hands a 3xx to `didReceive response` (it holds redirects
            // back to follow them), so a 3xx it could not follow, one without `Location`, is
            // known only here; its body is lost (see the Adapters article).
            if error == nil, let response = task.response as? HTTPURLResponse {
                bridge?.didReceiveIfFirst(response: response)
            }
            bridge?.didComplete(error: error)
        }
    }
}
#endif
