import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The request of one call: what the stack sends.
///
/// The verb methods of ``Connection`` build it from the connection's defaults and the path, then
/// hand it to your builder closure:
///
/// ```swift
/// connection.post("greetings") { request in
///     request.setQuery(values: ["world"], forName: "hello")
///     request.headers[.contentType] = "text/plain"
///     request.body = .bytes(Data("hi".utf8))
/// }
/// ```
public struct Request: Sendable {
    /// The HTTP method.
    public var method: HTTPRequest.Method
    /// The absolute URL, query included. ``params`` reads and writes its query.
    public var url: URL
    /// The request headers (case-insensitive, multi-valued, in order).
    public var headers: HTTPFields
    /// The request body.
    public var body: RequestBody
    /// Per-request options: timeouts, streaming, params encoder, buffering limits.
    public var options: RequestOptions
    /// The connection's base URL, that ``path`` is relative to.
    var base: BaseURL?
    /// Why the last ``path`` set could not make a URL; the call fails with it.
    var pathFailure: FaradayError? {
        get { pathFailureBox?.value }
        set { pathFailureBox = newValue.map(Boxed.init) }
    }
    private var pathFailureBox: Boxed<FaradayError>?
    /// The URL the connection found to go to a credential origin when it made the request (see
    /// ``isToCredentialOrigin``).
    var homeURL: HomeURL?

    /// A URL with the credential origins it was checked against.
    struct HomeURL {
        let url: URL
        let credentialOrigins: [String]
    }

    /// Whether an adapter may send the request again when the reused connection it went out on
    /// closed before any byte of the answer: its method is idempotent (RFC 9110 §9.2.2) or it
    /// carries an `Idempotency-Key`, and its body can be sent again.
    package var mayBeSentAgain: Bool {
        let idempotent: Bool
        switch method {
        case .get, .head, .options, .trace, .put, .delete: idempotent = true
        default: idempotent = headers[Self.idempotencyKey] != nil
        }
        return idempotent && (body.bytesInMemory != nil || body.isReplayable)
    }

    /// The field that makes a request safe to send twice (draft-ietf-httpapi-idempotency-key-header).
    private static let idempotencyKey = HTTPField.Name("Idempotency-Key")!

    /// Creates a request.
    public init(
        method: HTTPRequest.Method,
        url: URL,
        headers: HTTPFields = HTTPFields(),
        body: RequestBody = .empty,
        options: RequestOptions = RequestOptions()
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.options = options
    }

    /// The query of ``url`` as parameters, through ``RequestOptions/paramsEncoder``.
    ///
    /// Setting it replaces the query. An undecodable query reads as empty parameters.
    public var params: Params {
        get {
            let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery
            return (try? options.paramsEncoder.decode(query ?? "")) ?? Params()
        }
        set {
            guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return }
            let query = options.paramsEncoder.encode(newValue)
            components.percentEncodedQuery = query.isEmpty ? nil : query
            if let newURL = components.url { url = newURL }
        }
    }

    /// Replaces every query parameter named `name` with one `name=value` pair per value, in
    /// order (`hello=world`; `a=1&a=2`), whatever ``RequestOptions/paramsEncoder`` is: this is
    /// the query written literally, as the original Swift Faraday did. (``params`` keeps each
    /// encoder's own rules, `a[]=1&a[]=2` for a nested array.) No value removes the name.
    public mutating func setQuery(values: [String], forName name: String) {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return }
        var pairs = (components.percentEncodedQuery ?? "").split(separator: "&").filter { pair in
            QueryEscaping.unescape(pair.prefix { $0 != "=" }) != name
        }.map(String.init)
        let escapedName = QueryEscaping.escape(name, space: .plus)
        pairs += values.map { "\(escapedName)=\(QueryEscaping.escape($0, space: .plus))" }
        components.percentEncodedQuery = pairs.isEmpty ? nil : pairs.joined(separator: "&")
        if let newURL = components.url { url = newURL }
    }

    /// The URL's path: relative to the connection's base URL when the request is under it
    /// (`users/1` for `https://api.example.com/v1/users/1` on `https://api.example.com/v1`),
    /// else absolute. Setting it resolves a new path as the verbs' path argument does (the
    /// original Swift Faraday's `request.path = "path/to/resource"`); the query stays unless the
    /// new path brings one. A path that makes no valid URL fails the call with
    /// ``FaradayError/Code/invalidURL``.
    public var path: String {
        get {
            let path = url.path(percentEncoded: false)
            guard let base, case let basePath = QueryEscaping.unescape(Substring(base.path), plusIsSpace: false),
                path.hasPrefix(basePath)
            else { return path }
            let rest = path.dropFirst(basePath.count)
            return rest.hasPrefix("/") || basePath.hasSuffix("/") ? String(rest.drop { $0 == "/" }) : path
        }
        set {
            do {
                let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery
                let resolved = try URLResolver.resolve(newValue, against: base, resolution: .underBasePath)
                guard var components = URLComponents(url: resolved.url, resolvingAgainstBaseURL: false) else { return }
                components.percentEncodedQuery = resolved.query ?? query
                url = components.url ?? resolved.url
                pathFailure = nil
            } catch {
                pathFailure = error
            }
        }
    }
}

extension Request: CustomReflectable {
    /// The request's fields, as `print` and `dump` show a plain struct's, through ``Redaction``'s
    /// defaults: credential headers hidden, and the URL without user info or credential query
    /// values, as OkHttp's `Headers.toString()` masks them.
    public var customMirror: Mirror {
        let redaction = Redaction()
        return Mirror(
            self,
            children: [
                "method": method, "url": redaction.redacting(url), "headers": redaction.redact(headers), "body": body,
                "options": options, "base": base.map { redaction.redacting($0.url) } as Any,
                "pathFailure": pathFailure as Any,
            ],
            displayStyle: .struct
        )
    }
}
