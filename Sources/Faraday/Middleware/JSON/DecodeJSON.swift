#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Asks for JSON and decodes JSON responses into ``Env/json``, keeping the raw bytes.
///
/// It adds `application/json` to `Accept`, and decodes a completion when its content type is
/// `application/json` or `application/*+json` (or one of ``Handler/contentTypes``), and each frame
/// of an NDJSON, JSON Lines or JSON text sequence stream, except for 204,
/// 205 and 304 responses, HEAD requests and empty bodies. On a streamed response it decodes each
/// frame. The raw body stays in `env.response.body`; ``Response/decode(_:decoder:)`` uses this
/// handler's decoder.
///
/// The body is checked when the response completes; the ``JSON`` value is made when ``Env/json``
/// first reads it (once, for the env and its copies), so that a consumer that decodes its own
/// types with ``Response/decode(_:decoder:)`` does not pay for a value it never reads. A decoder
/// whose key or non-conforming float strategy changes the value makes it at once.
///
/// A body that is not JSON (RFC 8259, read by Faraday's own parser whatever the platform's
/// `JSONDecoder` tolerates) fails the call with ``FaradayError/Code/parsingFailed``; the error
/// carries the response (and so the body) and a ``JSONSyntaxError`` with the line, column, byte
/// offset and reason.
public struct DecodeJSON: Middleware {
    /// The app below.
    public let app: any App
    /// The handler's settings.
    public let handler: Handler

    /// Builds ``DecodeJSON``.
    public struct Handler: Faraday.Handler {
        /// The decoder for ``Env/json`` and for `response.decode(_:)`.
        public var decoder: JSONDecoder
        /// Extra media types to decode, besides `application/json` and `application/*+json`.
        public var contentTypes: [String]

        /// Creates the handler.
        public init(decoder: JSONDecoder = JSONDecoder(), contentTypes: [String] = []) {
            self.decoder = decoder
            self.contentTypes = contentTypes
        }

        public func build(app: any App) -> any Middleware { DecodeJSON(app: app, handler: self) }

        /// Below ``HTTPCache`` it would never see a hit: the cache answers one without calling
        /// the layers below it, so every cached response would come back undecoded.
        public func checkPlacement(in handlers: [any Faraday.Handler], at index: Int) throws(FaradayError) {
            guard handlers[..<index].contains(where: { $0 is HTTPCache.Handler }) else { return }
            throw FaradayError(
                .misplacedHandler,
                "DecodeJSON sits below HTTPCache, which answers a hit without calling the layers below it: every cached response would come back undecoded (env.json nil). Put DecodeJSON.Handler above HTTPCache.Handler."
            )
        }

        func decodes(_ mediaType: String?, isFrame: Bool) -> Bool {
            guard let mediaType else { return false }
            if mediaType == "application/json" || contentTypes.contains(mediaType) { return true }
            // A frame of a JSON stream is one JSON document.
            if isFrame && Self.jsonStreamTypes.contains(mediaType) { return true }
            return mediaType.hasPrefix("application/") && mediaType.hasSuffix("+json")
        }

        /// Media types of streams of JSON documents, decoded frame by frame.
        static let jsonStreamTypes: Set<String> = [
            "application/x-ndjson", "application/ndjson", "application/jsonl", "application/json-seq",
        ]
    }

    public func onRequest(_ env: inout Env) async throws {
        env.request.headers.accepts(contentTypes: ["application/json"])
    }

    public func onComplete(_ env: inout Env) throws {
        env[JSONDecoderKey.self] = handler.decoder
        guard let response = env.response, env.hasBodyToDecode,
            handler.decodes(response.headers.contentType, isFrame: env.phase.frameIndex != nil)
        else { return }
        try env.requireDecodedBody()
        do {
            env[DecodedJSONKey.self] = try handler.decoder.decodedJSON(from: response.body)
        } catch {
            throw FaradayError.parsingFailed("The response body is not valid JSON", env: env, underlying: error)
        }
    }
}

/// Where ``DecodeJSON`` puts the decoded body.
enum DecodedJSONKey: EnvKey { typealias Value = DecodedJSON }

/// A body ``DecodeJSON`` found to be JSON, made into a ``JSON`` value when ``Env/json`` first
/// reads it: a consumer that decodes its own `Decodable` types from the body (or reads nothing)
/// does not pay for a value it never reads (for a 207-byte object, eight allocations and the
/// hashing of every member name). Copies of an env share the value once made. The value is made
/// by the first reader, on its thread, under the lock (another reader waits); until then the
/// body's bytes are kept (shared with `response.body`).
struct DecodedJSON: Sendable {
    private enum State {
        case checked(Data)
        case made(JSON)
    }
    private let state: Locked<State>

    /// A body that ``JSONParser/validate(_:)`` accepted.
    init(checked body: Data) { state = Locked(.checked(body)) }

    /// A value made already.
    init(_ value: JSON) { state = Locked(.made(value)) }

    /// Whether the value has been made (read, or decoded at once by a decoder's settings).
    var isMade: Bool {
        state.withLock { if case .made = $0 { true } else { false } }
    }

    /// The value, made on the first read.
    var value: JSON {
        state.withLock { state in
            switch state {
            case .made(let value):
                return value
            case .checked(let body):
                // The reader that accepted the body (the same code, checking the same bytes) makes
                // its value: it cannot refuse it now (JSONConformanceTests and JSONParserTests
                // compare the two on every suite text and thousands of mutated ones).
                let value: JSON
                do {
                    value = try JSONParser.parse(body)
                } catch {
                    assertionFailure("JSONParser.validate accepted a text that parse refuses: \(error)")
                    value = .null
                }
                state = .made(value)
                return value
            }
        }
    }
}

extension DecodedJSON: CustomStringConvertible, CustomReflectable {
    /// The value's description, as the env showed it when it held the value itself.
    var description: String { value.description }

    /// The value, as `dump` showed it when the env held the value itself.
    var customMirror: Mirror { Mirror(reflecting: value) }
}

/// The decoder that ``DecodeJSON`` was configured with, for `response.decode(_:)`.
enum JSONDecoderKey: EnvKey { typealias Value = JSONDecoder }

extension Env {
    /// Whether this completion carries a body for a decoding middleware to read: not empty, not
    /// the answer to a HEAD request, and not a 204, 205 or 304 (which have none).
    public var hasBodyToDecode: Bool {
        guard let response, !response.body.isEmpty, request.method != .head else { return false }
        return ![204, 205, 304].contains(response.status.code)
    }

    /// The JSON that ``DecodeJSON`` decoded from this completion's body, if any: made on the first
    /// read from the body ``DecodeJSON`` checked.
    public var json: JSON? { self[DecodedJSONKey.self]?.value }

    /// The JSON decoder configured on the stack (by ``DecodeJSON``), or a default one.
    public var jsonDecoder: JSONDecoder { self[JSONDecoderKey.self] ?? JSONDecoder() }
}
