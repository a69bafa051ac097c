import AsyncHTTPClient
import Faraday
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

extension AsyncHTTPClientAdapter {
    /// Maps AsyncHTTPClient, NIO and TLS errors to `FaradayError` codes.
    static func faradayError(_ error: any Error, request: Request) -> FaradayError {
        func make(_ code: FaradayError.Code, _ message: String) -> FaradayError {
            FaradayError(code, message, method: request.method, url: request.url, underlying: error)
        }
        switch error {
        case let error as FaradayError:
            return error.code == .unknown ? error : error.attaching(request)
        case let tooLarge as BodyTooLarge:
            return make(.bodyTooLarge, "The response body is larger than \(tooLarge.limit) bytes; stream it instead.")
        case is CancellationError:
            return make(.cancelled, "The request was cancelled.")
        case let error as HTTPClientError:
            switch error {
            case .cancelled, .requestStreamCancelled: return make(.cancelled, "The request was cancelled.")
            case .connectTimeout, .getConnectionFromPoolTimeout:
                return make(.connectTimeout, "Opening the connection timed out.")
            case .tlsHandshakeTimeout: return make(.connectTimeout, "The TLS handshake timed out.")
            case .readTimeout: return make(.readTimeout, "No response bytes arrived within the read timeout.")
            case .writeTimeout: return make(.writeTimeout, "Sending the request timed out.")
            case .deadlineExceeded: return make(.callTimeout, "The call did not finish before its deadline.")
            case .remoteConnectionClosed:
                return make(.connectionFailed, "The server closed the connection before the response was complete.")
            case .bodyLengthMismatch:
                return make(.invalidRequest, "The request body's length differs from its declared length.")
            case .proxyAuthenticationRequired:
                let proxy = request.options.proxy?.proxy(for: request.url).map { " (\($0.address))" } ?? ""
                return make(
                    .proxyAuthenticationRequired,
                    "The proxy\(proxy) answered 407 Proxy Authentication Required: it wants credentials, or other ones."
                )
            case .invalidProxyResponse:
                return make(
                    .connectionFailed,
                    "The proxy refused to open a tunnel to the origin (an answer other than 2xx or 407 to CONNECT; tinyproxy answers 401 to wrong credentials, AsyncHTTPClient does not say which)."
                )
            case .httpProxyHandshakeTimeout, .socksHandshakeTimeout:
                return make(.connectTimeout, "The proxy did not answer in time.")
            case .invalidURL, .emptyHost, .emptyScheme:
                return make(.invalidURL, "The URL cannot be requested: \(error).")
            default: return make(.connectionFailed, "The HTTP client failed: \(error).")
            }
        case is NIOSSLError, is NIOSSLExtraError, is BoringSSLError:
            return make(.tlsFailure, "The TLS handshake failed: \(error).")
        case is HTTPParserError, is NIOHTTPDecoderError:
            return make(.invalidResponse, "The server sent an invalid HTTP response: \(error).")
        case is NIOConnectionError, is IOError, is ChannelError:
            return make(.connectionFailed, "The connection failed: \(error).")
        default:
            return make(.connectionFailed, "The request failed: \(error).")
        }
    }
}
