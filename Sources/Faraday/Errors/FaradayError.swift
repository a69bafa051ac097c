import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The one error type that Faraday throws.
///
/// Switch on ``code`` to react to a kind of failure; the other properties carry the context: the
/// request's method and URL, the response when there was one, the middleware that failed and the
/// underlying error.
///
/// ```swift
/// do {
///     let env = try await connection.get("users/1").value
/// } catch {  // every API of Faraday throws a FaradayError, so `error` is one
///     switch error.code {
///     case .resourceNotFound: print("no such user")
///     case .connectionFailed, .connectTimeout: print("offline")
///     default: throw error
///     }
/// }
/// ```
public struct FaradayError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// What kind of failure this is.
    public var code: Code
    /// A human-readable explanation.
    public var message: String
    /// The method of the request that failed, when there was one.
    public var method: HTTPRequest.Method?
    /// The URL of the request that failed, when it could be built.
    public var url: URL?
    /// The response that caused the error (status errors, parsing errors), when there was one.
    public var response: ResponseData?
    /// The lower-level error, when this one wraps another (a `URLError`, a `DecodingError`, …).
    public var underlying: (any Error)?
    private var extensions = Extensions()

    /// Creates an error.
    public init(
        _ code: Code,
        _ message: String,
        method: HTTPRequest.Method? = nil,
        url: URL? = nil,
        response: ResponseData? = nil,
        underlying: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.method = method
        self.url = url
        self.response = response
        self.underlying = underlying
    }

    /// The response status, when the error carries a response.
    public var status: HTTPResponse.Status? { response?.status }

    /// The response body as UTF-8 text, when there is one and it is valid UTF-8.
    public var bodyText: String? { response?.text }

    /// A typed detail kept by the middleware that raised the error, keyed by a type of its own
    /// (``RaiseError`` keeps the parsed error document this way).
    public subscript<Key: EnvKey>(_ key: Key.Type) -> Key.Value? {
        get { extensions[key] }
        set { extensions[key] = newValue }
    }

    /// `true` for every kind of timeout: connect, read, write and whole call.
    public var isTimeout: Bool {
        code == .connectTimeout || code == .readTimeout || code == .writeTimeout || code == .callTimeout
    }

    /// A one-line description with the code, message, method and URL (its password and
    /// credential query values hidden, see ``Redaction``), status and underlying error.
    public var description: String {
        var text = "FaradayError.\(code): \(message)"
        if let method, let url { text += " (\(method.rawValue) \(url.absoluteString))" }
        if let status { text += " [\(status.code)]" }
        if let underlying { text += " underlying: \(underlying)" }
        // The URL as the logs show it, wherever it appears (an underlying error may repeat it):
        // no password, no credential query values.
        return url.map { Redaction().scrub(text, of: $0) } ?? text
    }

    /// The ``description``: the URL redacted.
    public var debugDescription: String { description }

    /// The fields as `dump` shows them, through ``Redaction``: the URL (in the message too)
    /// without credentials, the response's credential headers hidden.
    public var customMirror: Mirror {
        let redaction = Redaction()
        return Mirror(
            self,
            children: [
                "code": code, "message": url.map { redaction.scrub(message, of: $0) } ?? message,
                "method": method as Any, "url": url.map { redaction.redacting($0) } as Any,
                "response": response as Any,
                // An underlying error's text may name the URL too (URLError's failing URL).
                "underlying": underlying.map { error in url.map { redaction.scrub("\(error)", of: $0) } ?? "\(error)" }
                    as Any,
            ],
            displayStyle: .struct
        )
    }

    /// Returns `self` with the request's method and URL filled in where they are missing.
    public func attaching(_ request: Request) -> FaradayError {
        var copy = self
        if copy.method == nil { copy.method = request.method }
        if copy.url == nil { copy.url = request.url }
        return copy
    }

    /// A ``Code/parsingFailed`` error for the body of `env`'s response, carrying the response
    /// and the decoder's own error.
    static func parsingFailed(_ message: String, env: Env, underlying: any Error) -> FaradayError {
        FaradayError(
            .parsingFailed,
            "\(message): \(underlying)",
            method: env.request.method,
            url: env.request.url,
            response: env.response,
            underlying: underlying
        )
    }

    /// Wraps any error as a `FaradayError`, mapping `CancellationError` to ``Code/cancelled``.
    package static func wrapping(_ error: any Error, request: Request? = nil) -> FaradayError {
        let wrapped: FaradayError
        switch error {
        case let error as FaradayError: wrapped = error
        case is CancellationError: wrapped = FaradayError(.cancelled, "The request was cancelled.")
        default: wrapped = FaradayError(.unknown, "\(error)", underlying: error)
        }
        guard let request else { return wrapped }
        return wrapped.attaching(request)
    }
}
