#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Turns 4xx and 5xx responses into ``FaradayError``s.
///
/// The error's ``FaradayError/code`` names the status (`.unauthorized`, `.resourceNotFound`,
/// `.tooManyRequests`… `.clientError` for other 4xx, `.serverError` for 5xx) and it carries the
/// request's method and URL, the response (status, headers, raw body), and the error code and
/// message when the body is a JSON error document (``FaradayError/ErrorDocument``).
///
/// Above or below ``Retry``, it works the same: Retry decides on the response head, before
/// RaiseError's hook turns the status into an error, so Retry's statuses are retried and the
/// others raised once. On a streamed response it raises on the first completion, before any frame
/// reaches the user.
public struct RaiseError: Middleware {
    /// The app below.
    public let app: any App
    /// The handler's settings.
    public let handler: Handler

    /// Builds ``RaiseError``.
    public struct Handler: Faraday.Handler {
        /// Status codes of 400 and above that are not errors for this connection.
        public var allowedStatuses: Set<Int>

        /// Creates the handler.
        public init(allowedStatuses: Set<Int> = []) {
            self.allowedStatuses = allowedStatuses
        }

        public func build(app: any App) -> any Middleware { RaiseError(app: app, handler: self) }
    }

    public func onComplete(_ env: inout Env) throws {
        if let error = FaradayError.statusError(for: env, allowing: handler.allowedStatuses) { throw error }
    }
}

extension FaradayError {
    /// The error for a 4xx or 5xx response, with its JSON error document, or `nil` for other
    /// statuses and for those in `allowed`. A 401, 403 or 407 to a request the stack sent without
    /// credentials says why (``Env/withheldCredentials``).
    public static func statusError(for env: Env, allowing allowed: Set<Int> = []) -> FaradayError? {
        guard let response = env.response, !allowed.contains(response.status.code),
            let code = Code.forStatus(response.status)
        else { return nil }
        var error = FaradayError(
            code,
            "The server answered \(response.status.code) \(response.status.reasonPhrase).",
            method: env.request.method,
            url: env.request.url,
            response: response
        )
        error.document = ErrorDocument(parsing: response.body)
        if let document = error.document {
            let parts =
                document.title.map { [$0, document.detail].compactMap { $0 } } ?? [document.message].compactMap { $0 }
            if !parts.isEmpty { error.message += " " + parts.joined(separator: ": ") }
        }
        if [401, 403, 407].contains(response.status.code), let withheld = env.withheldCredentials {
            error.message += " " + withheld
        }
        return error
    }
}

extension FaradayError {
    private enum DocumentKey: EnvKey { typealias Value = ErrorDocument }

    /// The code and message of the JSON error document in the response body, when ``RaiseError``
    /// (or ``statusError(for:allowing:)``) found one.
    public var document: ErrorDocument? {
        get { self[DocumentKey.self] }
        set { self[DocumentKey.self] = newValue }
    }

    /// The code and message of a JSON error document in a response body.
    ///
    /// The shapes read (the one list; the Errors article points here):
    ///
    /// | Body | ``code`` | ``message`` |
    /// |---|---|---|
    /// | `{"message": "…"}` | none | `message` |
    /// | `{"code": …, "message": "…"}` | `code` (a number as text) | `message` |
    /// | `{"error": "…"}` | `error` when it is a token (`invalid_token`: lowercase, digits, `_.-`), else none | `error` |
    /// | `{"error": "…", "error_description": "…"}` (OAuth 2.0, RFC 6749 §5.2) | `error` | `error_description` |
    /// | `{"error": {"code": …, "message": "…"}}` | `error.code` | `error.message` |
    /// | `{"errors": [{"code": …, "message": "…"}, …]}` | the first entry's `code` | its `message` |
    /// | RFC 9457 problem details, `{"type": …, "title": …, "detail": …}` | `type` | `detail`, else `title` (both also in ``title`` and ``detail``) |
    ///
    /// Other members are ignored; a body that is not a JSON object, or has none of these
    /// members, is no document (`nil`).
    public struct ErrorDocument: Sendable, Hashable {
        /// The error code, as text.
        public var code: String?
        /// The human-readable message (for problem details, the `detail`, else the `title`).
        public var message: String?
        /// A problem-details `title`: the short summary of the problem type.
        public var title: String?
        /// A problem-details `detail`: what went wrong this time.
        public var detail: String?

        /// Creates a document.
        public init(code: String?, message: String?, title: String? = nil, detail: String? = nil) {
            self.code = code
            self.message = message
            self.title = title
            self.detail = detail
        }

        /// Reads a JSON error document, or `nil` when `body` is not one.
        public init?(parsing body: Data) {
            guard !body.isEmpty, let json = try? JSONDecoder().decodeJSONValue(from: body), json.object != nil else {
                return nil
            }
            let source: JSON
            if let nested = json["error"], nested.object != nil {
                source = nested
            } else if let first = json["errors"]?[0], first.object != nil {
                source = first
            } else {
                source = json
            }
            // OAuth 2.0: `error` is the code, `error_description` the message.
            let oauthDescription = json["error"]?.string != nil ? json["error_description"]?.string : nil
            let message =
                source["message"]?.string ?? oauthDescription ?? json["error"]?.string ?? json["detail"]?.string
                ?? json["title"]?.string
            // A bare `error` that reads as a token (`invalid_grant`) is a code as well as the message.
            let errorToken = json["error"]?.string.flatMap { Self.isToken($0) ? $0 : nil }
            let code =
                Self.text(source["code"]) ?? (oauthDescription != nil ? json["error"]?.string : errorToken)
                ?? json["type"]?.string
            guard message != nil || code != nil else { return nil }
            self.init(code: code, message: message, title: json["title"]?.string, detail: json["detail"]?.string)
        }

        /// Lowercase letters, digits, `_`, `.` and `-`: an error code, not a sentence.
        private static func isToken(_ text: String) -> Bool {
            !text.isEmpty
                && text.utf8.allSatisfy {
                    (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F || $0 == 0x2E || $0 == 0x2D
                }
        }

        private static func text(_ value: JSON?) -> String? {
            switch value {
            case .string(let text)?: text
            case .int(let number)?: "\(number)"
            case .double(let number)?: "\(number)"
            default: nil
            }
        }
    }
}
