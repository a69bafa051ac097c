import Foundation

/// Encodes a ``Params`` request body as `application/x-www-form-urlencoded`, with the nested or
/// flat encoder, and sets the content type unless the request has one. Other bodies pass through.
///
/// ```swift
/// builder.use(URLEncoded.Handler())
/// connection.post("login", body: .form(["user": "ada", "roles": ["admin", "dev"]]))
/// // user=ada&roles%5B%5D=admin&roles%5B%5D=dev
/// ```
public struct URLEncoded: Middleware {
    /// The app below.
    public let app: any App
    /// The handler's settings.
    public let handler: Handler

    /// The form media type.
    public static let mediaType = "application/x-www-form-urlencoded"

    /// Builds ``URLEncoded``.
    public struct Handler: BodyEncodingHandler {
        /// The encoder; `nil` uses the request's ``RequestOptions/paramsEncoder``.
        public var encoder: (any ParamsEncoder)?

        /// Creates the handler.
        public init(encoder: (any ParamsEncoder)? = nil) {
            self.encoder = encoder
        }

        public func build(app: any App) -> any Middleware { URLEncoded(app: app, handler: self) }

        package func encodeBody(of request: inout Request) {
            URLEncoded.encode(&request, encoder: encoder ?? request.options.paramsEncoder)
        }
    }

    public func onRequest(_ env: inout Env) async throws {
        try handler.encodeBody(of: &env)
    }

    /// Encodes a ``Params`` body in place; other bodies are left alone.
    static func encode(_ request: inout Request, encoder: any ParamsEncoder) {
        guard let params = request.body.value as? Params else { return }
        request.body = .bytes(Data(encoder.encode(params).utf8))
        if !request.headers.contains(.contentType) { request.headers[.contentType] = mediaType }
    }
}

extension RequestBody {
    /// A form body: encoded by ``URLEncoded`` when the stack has it, else with the request's
    /// ``RequestOptions/paramsEncoder``, as `application/x-www-form-urlencoded`.
    public static func form(_ params: Params) -> RequestBody {
        .value(params) { URLEncoded.encode(&$0, encoder: $0.options.paramsEncoder) }
    }
}
