import Faraday
import Foundation

/// Asks for HAL and reads HAL responses into `Env.representation`.
///
/// ```swift
/// let connection = try Connection(url: "https://api.example.com") { builder in
///     builder.use(EncodeHAL.Handler())
///     builder.use(DecodeHAL.Handler())
///     builder.adapter = URLSessionAdapter()
/// }
/// let root = try await connection.get("/").representation
/// ```
///
/// It adds `application/hal+json` to `Accept`, and reads a completion whose content type is
/// `application/hal+json` (or one of ``Handler/contentTypes``), except for 204, 205 and 304
/// responses, HEAD requests and empty bodies. The representation's ``Representation/url`` is the
/// request's, so that relative links resolve. A malformed document fails the call with
/// `FaradayError.Code.parsingFailed` carrying the response and its body.
public struct DecodeHAL: Middleware {
    /// The app below.
    public let app: any App
    /// The handler's settings.
    public let handler: Handler

    /// Builds ``DecodeHAL``.
    public struct Handler: Faraday.Handler {
        /// Media types read as HAL besides `application/hal+json` (`application/json`, say, for
        /// servers that label HAL as plain JSON).
        public var contentTypes: [String]

        /// Creates the handler.
        public init(contentTypes: [String] = []) {
            self.contentTypes = contentTypes
        }

        public func build(app: any App) -> any Middleware { DecodeHAL(app: app, handler: self) }

        /// Below `HTTPCache` it would never see a hit: the cache answers one without calling the
        /// layers below it, so every cached document would come back unread.
        public func checkPlacement(in handlers: [any Faraday.Handler], at index: Int) throws(FaradayError) {
            guard handlers[..<index].contains(where: { $0 is HTTPCache.Handler }) else { return }
            throw FaradayError(
                .misplacedHandler,
                "DecodeHAL sits below HTTPCache, which answers a hit without calling the layers below it: every cached document would come back unread (env.representation nil). Put DecodeHAL.Handler above HTTPCache.Handler."
            )
        }
    }

    public func onRequest(_ env: inout Env) async throws {
        env.request.headers.accepts(contentTypes: [HAL.mediaType])
    }

    public func onComplete(_ env: inout Env) throws {
        guard env.hasBodyToDecode, let mediaType = env.response?.headers.contentType,
            mediaType == HAL.mediaType || handler.contentTypes.contains(mediaType)
        else { return }
        try env.requireDecodedBody()
        env[RepresentationKey.self] = try Representation(reading: env)
    }
}

/// Renders ``Representation`` request bodies (`.representation(…)`) as `application/hal+json`.
///
/// The content type is set unless the request has one. Put it above `EncodeJSON`, which would
/// otherwise encode the representation as plain `application/json`.
public struct EncodeHAL: Middleware {
    /// The app below.
    public let app: any App
    /// The handler's settings.
    public let handler: Handler

    /// Builds ``EncodeHAL``.
    public struct Handler: BodyEncodingHandler {
        /// The encoder (its output formatting, say).
        public var encoder: JSONEncoder

        /// Creates the handler.
        public init(encoder: JSONEncoder = JSONEncoder()) {
            self.encoder = encoder
        }

        public func build(app: any App) -> any Middleware { EncodeHAL(app: app, handler: self) }

        package func encodeBody(of request: inout Request) throws(FaradayError) {
            guard let representation = request.body.value as? Representation else { return }
            do {
                request.body = .bytes(try representation.encoded(encoder: encoder))
            } catch {
                throw error.attaching(request)
            }
            if !request.headers.contains(.contentType) { request.headers[.contentType] = HAL.mediaType }
        }

        /// Below `EncodeJSON` it would never see a representation: that encoder takes every
        /// `Encodable` body and would send it as plain `application/json`.
        public func checkPlacement(in handlers: [any Faraday.Handler], at index: Int) throws(FaradayError) {
            guard handlers[..<index].contains(where: { $0 is EncodeJSON.Handler }) else { return }
            throw FaradayError(
                .misplacedHandler,
                "EncodeHAL sits below EncodeJSON, which encodes every representation as plain application/json before EncodeHAL sees it. Put EncodeHAL.Handler above EncodeJSON.Handler."
            )
        }
    }

    public func onRequest(_ env: inout Env) async throws {
        try handler.encodeBody(of: &env)
    }
}

/// HAL's constants.
public enum HAL {
    /// `application/hal+json`.
    public static let mediaType = "application/hal+json"
}

enum RepresentationKey: EnvKey { typealias Value = Representation }

extension Env {
    /// The representation ``DecodeHAL`` read from this completion's body, if any.
    public var representation: Representation? { self[RepresentationKey.self] }
}

extension RequestBody {
    /// A HAL body, for ``EncodeHAL`` to render.
    public static func representation(_ representation: Representation) -> RequestBody { .value(representation) }
}
