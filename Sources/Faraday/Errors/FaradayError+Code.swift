import HTTPTypes

extension FaradayError {
    /// A kind of failure. New codes may be added; switch with a `default` case.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case invalidURL, invalidMethod, invalidRequest, encodingFailed
            case bodyNotReplayable, bodyTooLarge, authenticationFailed, storageFailed
            case stackLocked, misplacedHandler, noAdapter, unsupportedOption, noStubMatched, wouldDeadlock
            case connectionFailed, connectTimeout, readTimeout, writeTimeout, callTimeout
            case tlsFailure, cancelled, invalidResponse, parsingFailed, unacceptableContentType, unsupportedCharset
            case tooManyRedirects, redirectLoop, insecureRedirect, decompressionFailed, frameTooLarge
            case relationNotFound
            case badRequest, unauthorized, forbidden, resourceNotFound, proxyAuthenticationRequired
            case requestTimeout, conflict, unprocessableEntity, tooManyRequests
            case clientError, serverError, nilStatus, unknown
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        public var description: String { base.rawValue }

        // MARK: Before anything is sent

        /// The URL could not be built from the base URL and the path.
        public static let invalidURL = Code(.invalidURL)
        /// The method is not a valid HTTP token.
        public static let invalidMethod = Code(.invalidMethod)
        /// The request, or something used to build it, is malformed: a certificate, key or pin
        /// that cannot be read, a URI template, a stack position that does not exist, a body whose
        /// length differs from the one it declared.
        public static let invalidRequest = Code(.invalidRequest)
        /// A request body could not be encoded.
        public static let encodingFailed = Code(.encodingFailed)
        /// A one-shot body was asked for a second time (a retry or a redirect).
        public static let bodyNotReplayable = Code(.bodyNotReplayable)
        /// A body is larger than the configured maximum.
        public static let bodyTooLarge = Code(.bodyTooLarge)
        /// No credential could be had: none was ever set, its refresh failed, or refreshes came
        /// too often (a refresh loop). ``FaradayError/underlying`` holds a refresh's own error.
        public static let authenticationFailed = Code(.authenticationFailed)
        /// A file the client keeps state in (a cookie jar) could not be read or written.
        public static let storageFailed = Code(.storageFailed)
        /// The middleware stack was edited after the connection's first request.
        public static let stackLocked = Code(.stackLocked)
        /// A handler sits where it cannot work (``Handler/checkPlacement(in:at:)``); the message
        /// says where it belongs. Raised by the connection's first request, before anything is sent.
        public static let misplacedHandler = Code(.misplacedHandler)
        /// The connection has no adapter at the bottom of its stack, and the package's
        /// `URLSession` trait, which makes `URLSessionAdapter` the default, is off.
        public static let noAdapter = Code(.noAdapter)
        /// The adapter cannot honour an option of the request and refused to send it.
        public static let unsupportedOption = Code(.unsupportedOption)
        /// The ``TestAdapter`` has no stub for the request.
        public static let noStubMatched = Code(.noStubMatched)
        /// ``Response/wait(timeout:)`` was called on a thread the call itself needs (an event loop
        /// of the adapter's); blocking it would hang the call until its timeout, or for ever.
        public static let wouldDeadlock = Code(.wouldDeadlock)

        // MARK: Transport

        /// The connection could not be made or was lost.
        public static let connectionFailed = Code(.connectionFailed)
        /// Opening the connection took longer than the open timeout.
        public static let connectTimeout = Code(.connectTimeout)
        /// No bytes arrived within the read timeout.
        public static let readTimeout = Code(.readTimeout)
        /// Sending the request took longer than the write timeout.
        public static let writeTimeout = Code(.writeTimeout)
        /// The whole call took longer than its deadline.
        public static let callTimeout = Code(.callTimeout)
        /// The TLS handshake failed, including a certificate pin mismatch.
        public static let tlsFailure = Code(.tlsFailure)
        /// The request was cancelled.
        public static let cancelled = Code(.cancelled)
        /// The server sent something that is not a valid HTTP response.
        public static let invalidResponse = Code(.invalidResponse)
        /// A response body could not be parsed; ``FaradayError/response`` holds the body.
        public static let parsingFailed = Code(.parsingFailed)
        /// A body's `charset` names an encoding this platform cannot decode or write (see
        /// ``Charset``), or the Encoding Standard's "replacement" encoding, which none may decode.
        public static let unsupportedCharset = Code(.unsupportedCharset)
        /// A frame of a streamed response is larger than ``Streaming/maxFrameSize``.
        public static let frameTooLarge = Code(.frameTooLarge)
        /// A compressed body is corrupt or truncated, or decodes past the ``Decompression`` limits.
        public static let decompressionFailed = Code(.decompressionFailed)
        /// A call was redirected more times than ``FollowRedirects`` allows.
        public static let tooManyRedirects = Code(.tooManyRedirects)
        /// A redirect led back to a URL the call had already visited.
        public static let redirectLoop = Code(.redirectLoop)
        /// A redirect from HTTPS to plain HTTP was refused.
        public static let insecureRedirect = Code(.insecureRedirect)
        /// The response's content type is not one the request accepts (``ValidateContentType``).
        public static let unacceptableContentType = Code(.unacceptableContentType)
        /// A hypermedia document (FaradayHAL) has no link or embedded resource for the relation
        /// asked for; the message names the relations it has.
        public static let relationNotFound = Code(.relationNotFound)

        // MARK: HTTP status errors

        /// 400 Bad Request.
        public static let badRequest = Code(.badRequest)
        /// 401 Unauthorized.
        public static let unauthorized = Code(.unauthorized)
        /// 403 Forbidden.
        public static let forbidden = Code(.forbidden)
        /// 404 Not Found.
        public static let resourceNotFound = Code(.resourceNotFound)
        /// 407 Proxy Authentication Required.
        public static let proxyAuthenticationRequired = Code(.proxyAuthenticationRequired)
        /// 408 Request Timeout (the server's, not a client-side timeout).
        public static let requestTimeout = Code(.requestTimeout)
        /// 409 Conflict.
        public static let conflict = Code(.conflict)
        /// 422 Unprocessable Content.
        public static let unprocessableEntity = Code(.unprocessableEntity)
        /// 429 Too Many Requests.
        public static let tooManyRequests = Code(.tooManyRequests)
        /// Any other 4xx status.
        public static let clientError = Code(.clientError)
        /// Any 5xx status.
        public static let serverError = Code(.serverError)
        /// The response had no status at all.
        public static let nilStatus = Code(.nilStatus)
        /// A failure that fits no other code; see ``FaradayError/underlying``.
        public static let unknown = Code(.unknown)

        /// The status-error code for a status, or `nil` for statuses below 400.
        public static func forStatus(_ status: HTTPResponse.Status) -> Code? {
            switch status.code {
            case 400: .badRequest
            case 401: .unauthorized
            case 403: .forbidden
            case 404: .resourceNotFound
            case 407: .proxyAuthenticationRequired
            case 408: .requestTimeout
            case 409: .conflict
            case 422: .unprocessableEntity
            case 429: .tooManyRequests
            case 400..<500: .clientError
            case 500..<600: .serverError
            default: nil
            }
        }

        /// `true` for the codes of 4xx statuses.
        public var isClientError: Bool {
            [
                .badRequest, .unauthorized, .forbidden, .resourceNotFound, .proxyAuthenticationRequired,
                .requestTimeout, .conflict, .unprocessableEntity, .tooManyRequests, .clientError,
            ].contains(self)
        }
    }
}
