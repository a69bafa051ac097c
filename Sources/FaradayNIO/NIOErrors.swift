#if NIO
import Faraday
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// The connection closed, or was reset, before any byte of the response to the request on it:
/// on a reused connection, the server's keep-alive timeout may have closed it as the request went
/// out. `error` is what the call fails with unless the request goes again.
struct ClosedBeforeResponse: Error {
    let error: FaradayError
}

/// Asks the adapter to send the request again on a new connection (see `ClosedBeforeResponse`).
struct ResendOnNewConnection: Error {}

/// The `FaradayError` codes of SwiftNIO's, NIOSSL's and the adapters' own errors.
package enum NIOErrors {
    /// Maps NIO and TLS errors to `FaradayError` codes; a `FaradayError` keeps its code and gets
    /// the request attached.
    package static func faradayError(_ error: any Error, request: Request) -> FaradayError {
        func make(_ code: FaradayError.Code, _ message: String) -> FaradayError {
            FaradayError(code, message, method: request.method, url: request.url, underlying: error)
        }
        switch error {
        case let error as FaradayError:
            return error.code == .unknown ? error : error.attaching(request)
        case let closed as ClosedBeforeResponse:
            return closed.error.attaching(request)
        case let tooLarge as BodyTooLarge:
            return make(.bodyTooLarge, "The response body is larger than \(tooLarge.limit) bytes; stream it instead.")
        case is CancellationError:
            return make(.cancelled, "The request was cancelled.")
        case is NIOSSLError, is NIOSSLExtraError, is BoringSSLError:
            return make(.tlsFailure, "The TLS handshake failed: \(error).")
        case is HTTPParserError, is NIOHTTPDecoderError:
            return make(.invalidResponse, "The server sent an invalid HTTP response: \(error).")
        case ChannelError.connectTimeout:
            return make(.connectTimeout, "Opening the connection timed out.")
        case is NIOConnectionError, is IOError, is ChannelError:
            return make(.connectionFailed, "The connection failed: \(error).")
        default:
            return make(.connectionFailed, "The request failed: \(error).")
        }
    }
}
#endif
