import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A request body: nothing, bytes, a stream, or a value waiting to be encoded. The one body
/// vocabulary of connections and typed endpoints alike.
///
/// ```swift
/// connection.post("users", body: .json(user))                  // JSON
/// connection.post("login", body: .form(["user": "ada"]))       // a form
/// connection.post("notes", body: .text("hello"))               // text/plain
/// connection.put("avatar", body: try .file(url, contentType: "image/png"))
/// api.post(.json(user), to: "users")                           // the same bodies for endpoints
/// ```
///
/// A value body (`.json`, `.form`, `.multipart`, `.propertyList`) is encoded by the encoding
/// middleware of the stack when there is one (``EncodeJSON`` with its encoder, ``URLEncoded``
/// with its params encoder…), and otherwise just above the adapter by its default encoding, so a
/// stack without encoders still sends it. A body's ``contentType`` is sent when the request
/// has no `Content-Type`.
///
/// A body says whether it can be sent again (``isReplayable``). Retries and redirects replay only
/// replayable bodies: asking a one-shot stream for its bytes a second time throws
/// ``FaradayError/Code/bodyNotReplayable`` instead of sending an empty or partial body.
public struct RequestBody: Sendable {
    /// Encodes a value body into the request when no middleware did: sets the bytes and the
    /// content type.
    public typealias DefaultEncoding = @Sendable (inout Request) throws -> Void

    private enum Storage: Sendable {
        case empty
        case bytes(Data)
        case stream(length: Int?, source: StreamSource)
        case value(any Sendable, DefaultEncoding?)
    }

    private var storage: Storage
    /// The media type of the body, sent as `Content-Type` when the request sets none.
    public var contentType: String?

    private init(storage: Storage, contentType: String? = nil) {
        self.storage = storage
        self.contentType = contentType
    }

    /// No body.
    public static let empty = RequestBody(storage: .empty)

    /// A body of bytes (replayable), with its media type if it has one.
    public static func bytes(_ data: Data, contentType: String? = nil) -> RequestBody {
        RequestBody(storage: .bytes(data), contentType: contentType)
    }

    /// A body of text (replayable), `text/plain; charset=utf-8` unless you say otherwise, in
    /// the encoding the `charset` of `contentType` names (UTF-8 without one):
    /// `.text("café", contentType: "text/plain; charset=iso-8859-1")` sends `caf` and 0xE9.
    ///
    /// Text the charset cannot hold (a `日` in ISO-8859-1), or a charset this platform cannot
    /// write, is sent as UTF-8 with `charset=utf-8` in place of the one given, so that the label
    /// always names the bytes; ``Charset/encode(_:)`` is the way to be told instead. A bare
    /// `charset=utf-16` body starts with a byte-order mark.
    public static func text(_ string: String, contentType: String = "text/plain; charset=utf-8") -> RequestBody {
        guard let label = HTTPFields.mediaTypeParameters(contentType)["charset"], let charset = Charset(label: label),
            charset != .utf8
        else { return .bytes(Data(string.utf8), contentType: contentType) }
        if let bytes = try? charset.encode(string) {
            // A bare `utf-16` is read big-endian without a byte-order mark (RFC 2781): say which.
            let mark = label.trimmingHTTPWhitespace.lowercasedASCII == "utf-16" ? Data([0xFF, 0xFE]) : Data()
            return .bytes(mark + bytes, contentType: contentType)
        }
        return .bytes(Data(string.utf8), contentType: Self.replacingCharset(of: contentType, with: "utf-8"))
    }

    /// `contentType` with its `charset` parameter's value replaced.
    private static func replacingCharset(of contentType: String, with charset: String) -> String {
        contentType.split(separator: ";", omittingEmptySubsequences: false).map { piece in
            let name = piece.split(separator: "=", maxSplits: 1).first.map { $0.trimmingHTTPWhitespace.lowercasedASCII }
            return name == "charset" ? " charset=" + charset : String(piece)
        }.joined(separator: ";")
    }

    /// A replayable streamed body: `makeStream` is called once per attempt and must produce the
    /// same bytes each time. `length` is sent as `Content-Length` when known, else the body is chunked.
    public static func stream<Chunks: AsyncSequence & Sendable>(
        length: Int? = nil,
        _ makeStream: @escaping @Sendable () -> Chunks
    ) -> RequestBody where Chunks.Element == Data {
        RequestBody(storage: .stream(length: length, source: StreamSource(factory: { ByteStream(makeStream()) })))
    }

    /// A one-shot streamed body: it can be sent once. A retry or redirect that needs it again fails
    /// with ``FaradayError/Code/bodyNotReplayable``.
    public static func stream<Chunks: AsyncSequence & Sendable>(
        _ chunks: Chunks,
        length: Int? = nil
    ) -> RequestBody where Chunks.Element == Data {
        RequestBody(storage: .stream(length: length, source: StreamSource(oneShot: ByteStream(chunks))))
    }

    /// A value for an encoding middleware to turn into bytes, or, when none of the stack did,
    /// `defaultEncoding` just above the adapter. A value with no default encoding that no
    /// middleware encoded fails the call with ``FaradayError/Code/encodingFailed`` before
    /// anything is sent.
    public static func value(_ value: any Sendable, defaultEncoding: DefaultEncoding? = nil) -> RequestBody {
        RequestBody(storage: .value(value, defaultEncoding))
    }

    /// `true` when there is no body.
    public var isEmpty: Bool {
        switch storage {
        case .empty: true
        case .bytes(let data): data.isEmpty
        case .stream(let length, _): length == 0
        case .value: false
        }
    }

    /// `true` when the body can be sent again (bytes, values and stream factories).
    public var isReplayable: Bool {
        if case .stream(_, let source) = storage { return source.isReplayable }
        return true
    }

    /// The length in bytes when known.
    public var length: Int? {
        switch storage {
        case .empty: 0
        case .bytes(let data): data.count
        case .stream(let length, _): length
        case .value: nil
        }
    }

    /// The bytes of a body held in memory: empty for no body.
    ///
    /// - Throws: ``FaradayError/Code/invalidRequest`` naming the fix when the body holds no bytes
    ///   yet: a value that an encoder below has not encoded (a middleware above ``EncodeJSON``
    ///   reads it), or a stream. ``Env/encodeRequestBody()`` encodes a value now, by the rules of
    ///   the stack's encoder; ``Env/requestBodyBytes(upTo:)`` also reads a stream into memory.
    public var bytes: Data {
        get throws(FaradayError) {
            switch storage {
            case .empty: return Data()
            case .bytes(let data): return data
            case .value(let value, _):
                throw FaradayError(
                    .invalidRequest,
                    "The request body is a value of type \(type(of: value)) that no encoder has turned into bytes yet: this middleware sits above the encoder. Call `try env.encodeRequestBody()` (or `try await env.requestBodyBytes()`) to encode it now by the stack's encoder, or place the middleware below the encoder."
                )
            case .stream:
                throw FaradayError(
                    .invalidRequest,
                    "The request body is a stream, not bytes in memory. Call `try await env.requestBodyBytes(upTo:)` to read it into memory (it is then sent from there), or read it with `makeStream()`."
                )
            }
        }
    }

    /// The bytes when the body holds them in memory (empty for no body), else `nil` (a value not
    /// encoded yet, a stream): for an adapter choosing how to send a body. A middleware that needs
    /// the bytes wherever it sits uses ``Env/requestBodyBytes(upTo:)`` instead.
    public var bytesInMemory: Data? {
        switch storage {
        case .empty: Data()
        case .bytes(let data): data
        case .stream, .value: nil
        }
    }

    /// The value awaiting an encoder, when the body is one.
    public var value: (any Sendable)? {
        if case .value(let value, _) = storage { return value }
        return nil
    }

    /// The encoding a value body falls back on.
    var defaultEncoding: DefaultEncoding? {
        if case .value(_, let encoding) = storage { return encoding }
        return nil
    }

    /// The body's bytes as a stream of chunks, for an adapter to send.
    ///
    /// - Throws: ``FaradayError/Code/bodyNotReplayable`` when a one-shot stream was already taken;
    ///   ``FaradayError/Code/encodingFailed`` when the body is a value no middleware encoded.
    public func makeStream() throws(FaradayError) -> ByteStream {
        switch storage {
        case .empty: return ByteStream(EmptyChunks())
        case .bytes(let data): return ByteStream(SingleChunk(data: data))
        case .stream(_, let source): return try source.take()
        case .value(let value, _):
            throw FaradayError(
                .encodingFailed,
                "The body is a value of type \(type(of: value)) that no middleware encoded; add the encoding middleware for its kind of body above the adapter."
            )
        }
    }

    /// Collects the whole body into memory, failing past `limit` bytes.
    ///
    /// - Throws: ``FaradayError/Code/bodyTooLarge`` past `limit`; what the body's stream threw,
    ///   as a ``FaradayError``.
    public func collect(upTo limit: Int) async throws(FaradayError) -> Data {
        if let bytesInMemory { return bytesInMemory }
        return try await makeStream().collect(upTo: limit, "The request body")
    }
}

/// Where a streamed body's chunks come from: a factory (replayable) or one stream (one-shot).
private final class StreamSource: Sendable {
    private let factory: (@Sendable () -> ByteStream)?
    private let oneShot: Locked<ByteStream?>

    init(factory: @escaping @Sendable () -> ByteStream) {
        self.factory = factory
        self.oneShot = Locked(nil)
    }

    init(oneShot stream: ByteStream) {
        self.factory = nil
        self.oneShot = Locked(stream)
    }

    var isReplayable: Bool { factory != nil }

    func take() throws(FaradayError) -> ByteStream {
        if let factory { return factory() }
        guard let stream = oneShot.withLock({ $0.take() }) else {
            throw FaradayError(
                .bodyNotReplayable,
                "The request body is a one-shot stream that was already sent; it cannot be sent again by a retry or redirect. Use RequestBody.stream(length:_:) with a factory, or bytes."
            )
        }
        return stream
    }
}

private struct EmptyChunks: AsyncSequence, Sendable {
    struct AsyncIterator: AsyncIteratorProtocol {
        mutating func next() async throws -> Data? { nil }
    }
    func makeAsyncIterator() -> AsyncIterator { AsyncIterator() }
}

/// Bytes as a stream of one chunk (none when empty).
struct SingleChunk: AsyncSequence, Sendable {
    let data: Data
    struct AsyncIterator: AsyncIteratorProtocol {
        var data: Data?
        mutating func next() async throws -> Data? {
            defer { data = nil }
            return data
        }
    }
    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(data: data.isEmpty ? nil : data) }
}

extension RequestBody {
    /// `true` when a request with this body and `headers` needs ``Request/encodePendingBody()``
    /// before an adapter sends it.
    func isPending(with headers: HTTPFields) -> Bool {
        switch storage {
        case .value: true  // to encode
        case .empty: contentType != nil  // a GET's
        case .bytes, .stream: contentType != nil || (!isEmpty && !headers.contains(.contentType))
        }
    }
}

extension Request {
    /// Readies the body for an adapter: a value that no middleware encoded is encoded by its
    /// default encoding, and the body's content type (`application/octet-stream` for bytes of
    /// no declared type) is set when the request has none.
    mutating func encodePendingBody() throws(FaradayError) {
        try encodeValueByDefault()
        // Bytes that say nothing of their type are sent as bytes (RFC 9110 §8.3), by every adapter:
        // URLSession would otherwise call them a form.
        if !headers.contains(.contentType), !body.isEmpty {
            headers[.contentType] = body.contentType ?? "application/octet-stream"
        }
    }

    /// Encodes a value body by its default encoding; other bodies are left alone.
    mutating func encodeValueByDefault() throws(FaradayError) {
        if let value = body.value {
            guard let encode = body.defaultEncoding else {
                throw FaradayError(
                    .encodingFailed,
                    "The body is a value of type \(type(of: value)) that no middleware encoded; add the encoding middleware for its kind of body above the adapter."
                )
                .attaching(self)
            }
            do {
                try encode(&self)
            } catch {
                var failure = FaradayError.wrapping(error, request: self)
                if failure.code == .unknown {
                    failure = FaradayError(
                        .encodingFailed,
                        "The request body could not be encoded: \(error)",
                        underlying: error
                    )
                    .attaching(self)
                }
                throw failure
            }
        }
    }
}

extension RequestBody: CustomReflectable {
    /// What the body is and its size, never its bytes or value (a form's password, a token).
    public var customMirror: Mirror {
        let kind: String
        switch storage {
        case .empty: kind = "empty"
        case .bytes(let data): kind = "\(data.count) bytes"
        case .stream(let length, let source):
            kind =
                "\(source.isReplayable ? "replayable" : "one-shot") stream of \(length.map { "\($0) bytes" } ?? "unknown length")"
        case .value(let value, _): kind = "a value of type \(type(of: value)) to encode"
        }
        return Mirror(self, children: ["body": kind, "contentType": contentType as Any], displayStyle: .struct)
    }
}
