import Foundation

/// Encodes a ``JSON`` or `Encodable` request body and sets `Content-Type: application/json`
/// unless the request already has a content type. Other bodies pass through untouched.
///
/// ```swift
/// builder.use(EncodeJSON.Handler())
/// connection.post("users", body: .json(["name": "Ada"]))
/// connection.post("users", body: .encodable(User(name: "Ada")))
/// ```
///
/// A value that cannot be encoded fails the call with ``FaradayError/Code/encodingFailed`` before
/// anything is sent.
public struct EncodeJSON: Middleware {
    /// The app below.
    public let app: any App
    /// The handler's settings.
    public let handler: Handler

    /// Builds ``EncodeJSON``.
    public struct Handler: Faraday.Handler {
        /// The encoder for `Encodable` values.
        public var encoder: JSONEncoder
        /// The content type set when the request has none.
        public var contentType: String

        /// Creates the handler.
        public init(encoder: JSONEncoder = JSONEncoder(), contentType: String = "application/json") {
            self.encoder = encoder
            self.contentType = contentType
        }

        public func build(app: any App) -> any App { EncodeJSON(app: app, handler: self) }
    }

    public func onRequest(_ env: inout Env) async throws {
        guard let value = env.request.body.value else { return }
        let data: Data
        do {
            switch value {
            case let json as JSON: data = try handler.encoder.encode(json)
            case let encodable as any Encodable: data = try handler.encoder.encode(encodable)
            default: return
            }
        } catch {
            throw FaradayError(
                .encodingFailed,
                "The request body of type \(type(of: value)) could not be encoded as JSON: \(error)",
                method: env.request.method,
                url: env.request.url,
                underlying: error
            )
        }
        env.request.body = .bytes(data)
        if env.request.headers[.contentType] == nil { env.request.headers[.contentType] = handler.contentType }
    }
}

extension RequestBody {
    /// A JSON body, for ``EncodeJSON`` to encode.
    public static func json(_ value: JSON) -> RequestBody { .value(value) }

    /// An `Encodable` body, for ``EncodeJSON`` to encode.
    public static func encodable(_ value: some Encodable & Sendable) -> RequestBody { .value(value) }
}
