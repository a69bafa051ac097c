import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A typed request: what to send and how to read the answer as a `Resource`.
///
/// Endpoints are values. Build them from an ``API`` (`api.get(.json(User.self), from: "users/1")`),
/// or derive one from another (HTTPTransport's dependent requests) with
/// ``init(_:_:decoder:base:)``, then send them with ``API/send(_:)``:
///
/// ```swift
/// var search = api.get(.json([User].self), from: "users")
/// search.query["name"] = "ada"
/// let users = try await api.send(search.authenticated(with: .bearer(token)))
/// ```
public struct Endpoint<Resource: Sendable>: Sendable {
    /// The HTTP method.
    public var method: HTTPRequest.Method
    /// The path, resolved against the connection's URL like any Faraday path; a full URL
    /// replaces it.
    public var path: String
    /// Query parameters, over the connection's.
    public var query: Params
    /// Headers, over the connection's.
    public var headers: HTTPFields
    /// Parameter sets, merged and encoded by ``Request/apply(_:)`` after the body is set.
    public var parameters: [ParameterSet]
    /// The body, if any: the same ``RequestBody`` values as the connection's verbs take.
    public var body: RequestBody?
    /// What adds credentials, if anything.
    public var authentication: AuthenticationProvider?
    /// How the response becomes a `Resource`.
    public var decoder: ResponseDecoder<Resource>
    /// Last adjustments to the request (options such as timeouts or streaming), after
    /// everything else.
    public var configure: (@Sendable (inout Request) throws -> Void)?

    /// Creates an endpoint.
    public init(
        _ method: HTTPRequest.Method = .get,
        _ path: String = "",
        query: Params = Params(),
        headers: HTTPFields = HTTPFields(),
        parameters: [ParameterSet] = [],
        body: RequestBody? = nil,
        decoder: ResponseDecoder<Resource>
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.parameters = parameters
        self.body = body
        self.decoder = decoder
    }

    /// Derives an endpoint from `base` (HTTPTransport's dependent requests): the path appends to
    /// the base's (a full URL replaces it), headers and query override the base's, parameter
    /// sets come after the base's (so same-encoding keys override them), and the body,
    /// authentication and adjustments are the base's unless this endpoint sets its own.
    public init<Base>(
        _ method: HTTPRequest.Method,
        _ path: String,
        decoder: ResponseDecoder<Resource>,
        base: Endpoint<Base>
    ) {
        self.init(
            method,
            Self.join(base.path, path),
            query: base.query,
            headers: base.headers,
            parameters: base.parameters,
            body: base.body,
            decoder: decoder
        )
        self.authentication = base.authentication
        self.configure = base.configure
    }

    /// This endpoint with `provider` adding credentials.
    public func authenticated(with provider: AuthenticationProvider) -> Endpoint {
        var copy = self
        copy.authentication = provider
        return copy
    }

    /// This endpoint reading its response with another decoder.
    public func decoding<Other>(_ decoder: ResponseDecoder<Other>) -> Endpoint<Other> {
        var other = Endpoint<Other>(
            method,
            path,
            query: query,
            headers: headers,
            parameters: parameters,
            body: body,
            decoder: decoder
        )
        other.authentication = authentication
        other.configure = configure
        return other
    }

    /// `base` then `path` with one slash between; a path with a scheme stands alone.
    static func join(_ base: String, _ path: String) -> String {
        if base.isEmpty || path.contains("://") { return path }
        if path.isEmpty { return base }
        let trimmedBase = base.hasSuffix("/") ? String(base.dropLast()) : base
        return trimmedBase + "/" + (path.hasPrefix("/") ? String(path.dropFirst()) : path)
    }
}

extension Endpoint: CustomReflectable {
    /// The endpoint through ``Redaction``: its path or URL and query without credential values,
    /// its credential headers hidden, its body's kind only, whether it authenticates.
    public var customMirror: Mirror {
        let redaction = Redaction()
        return Mirror(
            self,
            children: [
                "method": method, "path": redaction.redacting(urlText: path), "query": query,
                "headers": redaction.redact(headers), "parameterSets": parameters.count, "body": body as Any,
                "authenticates": authentication != nil,
            ],
            displayStyle: .struct
        )
    }
}
