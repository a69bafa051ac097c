#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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

        /// The encoding of the form's text before it is percent-encoded: UTF-8 unless a server
        /// wants a legacy one (`Charset(label: "windows-1252")`). A character it cannot hold is
        /// written as HTML forms write it, `&#8364;`.
        public var charset: Charset

        /// Creates the handler.
        public init(encoder: (any ParamsEncoder)? = nil, charset: Charset = .utf8) {
            self.encoder = encoder
            self.charset = charset
        }

        public func build(app: any App) -> any Middleware { URLEncoded(app: app, handler: self) }

        package func encodeBody(of request: inout Request) {
            URLEncoded.encode(&request, encoder: encoder ?? request.options.paramsEncoder, charset: charset)
        }
    }

    public func onRequest(_ env: inout Env) async throws {
        try handler.encodeBody(of: &env)
    }

    /// Encodes a ``Params`` body in place; other bodies are left alone. A charset other than
    /// UTF-8 is named in `Content-Type`; one this platform cannot write falls back to UTF-8.
    static func encode(_ request: inout Request, encoder: any ParamsEncoder, charset: Charset = .utf8) {
        guard let params = request.body.value as? Params else { return }
        var form = encoder.encode(params)
        var sent = Charset.utf8
        if let transcoded = QueryEscaping.transcode(form, to: charset) {
            (form, sent) = (transcoded, charset)
        }
        request.body = .bytes(Data(form.utf8))
        guard !request.headers.contains(.contentType) else { return }
        if sent == .utf8 {
            request.headers[.contentType] = mediaType
        } else {
            request.headers.setContentType(mediaType, parameters: ["charset": sent.name])
        }
    }
}

extension RequestBody {
    /// A form body: encoded by ``URLEncoded`` when the stack has it, else with the request's
    /// ``RequestOptions/paramsEncoder``, as `application/x-www-form-urlencoded`.
    public static func form(_ params: Params) -> RequestBody {
        .value(params) { URLEncoded.encode(&$0, encoder: $0.options.paramsEncoder) }
    }
}
