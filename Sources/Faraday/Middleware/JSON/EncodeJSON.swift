#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Encodes a ``JSON`` or `Encodable` request body and sets `Content-Type: application/json`
/// unless the request already has a content type. Other bodies pass through untouched.
///
/// ```swift
/// builder.use(EncodeJSON.Handler())
/// connection.post("users", body: .json(["name": "Ada"]))
/// connection.post("users", body: .json(User(name: "Ada")))
/// ```
///
/// A value that cannot be encoded fails the call with ``FaradayError/Code/encodingFailed`` before
/// anything is sent. Without this middleware, a JSON body is encoded with a plain `JSONEncoder`
/// just above the adapter; use it to choose the encoder (dates, keys) or the content type.
public struct EncodeJSON: Middleware {
    /// The app below.
    public let app: any App
    /// The handler's settings.
    public let handler: Handler

    /// Builds ``EncodeJSON``.
    public struct Handler: BodyEncodingHandler {
        /// The encoder for `Encodable` values.
        public var encoder: JSONEncoder
        /// The content type set when the request has none.
        public var contentType: String

        /// Creates the handler.
        public init(encoder: JSONEncoder = JSONEncoder(), contentType: String = "application/json") {
            self.encoder = encoder
            self.contentType = contentType
        }

        public func build(app: any App) -> any Middleware { EncodeJSON(app: app, handler: self) }

        package func encodeBody(of request: inout Request) throws(FaradayError) {
            try EncodeJSON.encode(&request, encoder: encoder, contentType: contentType)
        }
    }

    public func onRequest(_ env: inout Env) async throws {
        try handler.encodeBody(of: &env)
    }

    /// Encodes a JSON or `Encodable` body in place; other bodies are left alone.
    static func encode(_ request: inout Request, encoder: JSONEncoder, contentType: String) throws(FaradayError) {
        guard let value = request.body.value else { return }
        let data: Data
        do {
            switch value {
            case let json as JSON: data = try encoder.encode(json)
            case let encodable as any Encodable: data = try encoder.encode(encodable)
            default: return
            }
        } catch {
            throw FaradayError(
                .encodingFailed,
                "The request body of type \(type(of: value)) could not be encoded as JSON: \(error)",
                method: request.method,
                url: request.url,
                underlying: error
            )
        }
        request.body = .bytes(data)
        if !request.headers.contains(.contentType) { request.headers[.contentType] = contentType }
    }
}

extension RequestBody {
    /// A JSON body: encoded by ``EncodeJSON`` when the stack has it, else with a plain
    /// `JSONEncoder`, as `application/json`.
    public static func json(_ value: JSON) -> RequestBody { .value(value, defaultEncoding: encodeJSON) }

    /// An `Encodable` value as a JSON body: encoded by ``EncodeJSON`` when the stack has it, else
    /// with a plain `JSONEncoder`, as `application/json`.
    public static func json(_ value: some Encodable & Sendable) -> RequestBody {
        .value(value, defaultEncoding: encodeJSON)
    }

    private static let encodeJSON: DefaultEncoding = {
        try EncodeJSON.encode(&$0, encoder: JSONEncoder(), contentType: "application/json")
    }
}
