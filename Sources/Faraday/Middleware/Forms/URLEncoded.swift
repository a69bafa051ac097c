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
    public struct Handler: Faraday.Handler {
        /// The encoder; `nil` uses the request's ``RequestOptions/paramsEncoder``.
        public var encoder: (any ParamsEncoder)?

        /// Creates the handler.
        public init(encoder: (any ParamsEncoder)? = nil) {
            self.encoder = encoder
        }

        public func build(app: any App) -> any App { URLEncoded(app: app, handler: self) }
    }

    public func onRequest(_ env: inout Env) async throws {
        guard let params = env.request.body.value as? Params else { return }
        let encoder = handler.encoder ?? env.request.options.paramsEncoder
        env.request.body = .text(encoder.encode(params))
        if env.request.headers[.contentType] == nil { env.request.headers[.contentType] = Self.mediaType }
    }
}

extension RequestBody {
    /// A form body, for ``URLEncoded`` to encode.
    public static func form(_ params: Params) -> RequestBody { .value(params) }
}
