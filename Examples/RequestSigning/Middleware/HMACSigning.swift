// A middleware as a library target ships it: every type, property, initializer and hook that a
// user of the library touches is `public`. (`swift run RequestSigning` shows it at work.)
import Crypto
import Faraday
import Foundation

/// Signs every request with HMAC-SHA256 over its method, its target (path and query) and the
/// body bytes that go on the wire, and says what the body is with `Content-Digest` (RFC 9530).
///
/// ```swift
/// builder.use(HMACSigning.Handler(keyID: "client-1", secret: secret))
/// builder.use(EncodeJSON.Handler())   // above or below the signer: the same bytes are signed
/// ```
///
/// The body is read with ``Faraday/Env/requestBodyBytes(upTo:)``: above an encoder it is encoded
/// there and then, by that encoder's settings; a stream is read into memory and sent from there.
/// So what is signed is what the server receives, wherever the signer sits.
public struct HMACSigning: Middleware {
    /// The app below.
    public let app: any App
    /// The handler's settings.
    public let handler: Handler

    /// Creates the middleware around `app` (the stack calls this through ``Handler``).
    public init(app: any App, handler: Handler) {
        self.app = app
        self.handler = handler
    }

    /// Builds ``HMACSigning``.
    public struct Handler: Faraday.Handler {
        /// The key's name, sent with the signature so the server knows which secret to use.
        public var keyID: String
        /// The shared secret.
        public var key: SymmetricKey

        /// Creates the handler with a key's name and its secret.
        public init(keyID: String, secret: Data) {
            self.keyID = keyID
            self.key = SymmetricKey(data: secret)
        }

        public func build(app: any App) -> any Middleware { HMACSigning(app: app, handler: self) }
    }

    public func onRequest(_ env: inout Env) async throws {
        let body = try await env.requestBodyBytes()
        let target = Self.target(of: env.request.url)
        let signature = Self.signature(
            method: env.request.method.rawValue,
            target: target,
            body: body,
            key: handler.key
        )
        env.request.headers[.contentDigest] = Self.contentDigest(of: body)
        env.request.headers[.signature] = "keyId=\"\(handler.keyID)\",signature=\"\(signature)\""
    }

    /// The signature of a request as a server recomputes it: base64 of
    /// HMAC-SHA256(key, "METHOD\ntarget\n" + SHA-256 of the body in hex).
    public static func signature(method: String, target: String, body: Data, key: SymmetricKey) -> String {
        let digest = SHA256.hash(data: body).map { String(format: "%02x", $0) }.joined()
        let message = Data("\(method)\n\(target)\n\(digest)".utf8)
        return Data(HMAC<SHA256>.authenticationCode(for: message, using: key)).base64EncodedString()
    }

    /// `sha-256=:…:`, the body's `Content-Digest` field value (RFC 9530).
    public static func contentDigest(of body: Data) -> String {
        "sha-256=:\(Data(SHA256.hash(data: body)).base64EncodedString()):"
    }

    /// The request target as it goes on the wire: the path and the query, percent-encoded.
    public static func target(of url: URL) -> String {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        let path = components?.percentEncodedPath ?? "/"
        return (path.isEmpty ? "/" : path) + (components?.percentEncodedQuery.map { "?\($0)" } ?? "")
    }
}

extension HTTPField.Name {
    /// `Signature`.
    public static let signature = HTTPField.Name.named("Signature")
    /// `Content-Digest` (RFC 9530).
    public static let contentDigest = HTTPField.Name.named("Content-Digest")
}
