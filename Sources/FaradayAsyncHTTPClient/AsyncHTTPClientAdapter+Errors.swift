#if AsyncHTTPClient
import AsyncHTTPClient
import Faraday
import FaradayNIO
import NIOCore

extension AsyncHTTPClientAdapter {
    /// Maps AsyncHTTPClient's errors to `FaradayError` codes, and NIO's and TLS errors as
    /// ``NIOErrors`` does.
    static func faradayError(_ error: any Error, request: Request) -> FaradayError {
        func make(_ code: FaradayError.Code, _ message: String) -> FaradayError {
            FaradayError(code, message, method: request.method, url: request.url, underlying: error)
        }
        switch error {
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
        case is StaleConnectionClosed:
            return make(.connectionFailed, "The server closed the connection without answering.")
        default:
            return NIOErrors.faradayError(error, request: request)
        }
    }
}
#endif
