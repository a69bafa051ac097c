import Foundation
import HTTPTypes

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

    /// Replaces every query parameter named `name` with one entry per value (`a=1&a=2` with the
    /// flat encoder, `a[]=1&a[]=2` with the nested one when there are several).
    public mutating func setQuery(values: [String], forName name: String) {
        var current = params
        current[name] = values.count == 1 ? .string(values[0]) : .array(values.map(Params.Value.string))
        params = current
    }
}
