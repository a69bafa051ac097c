import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Asks for compressed responses and decodes them: gzip and deflate (zlib-wrapped or raw)
/// always, Brotli and Zstandard where the system has their libraries, buffered or streamed chunk
/// by chunk, with limits that stop decompression bombs.
///
/// ```swift
/// builder.use(Decompression.Handler())
/// ```
///
/// It sets `Accept-Encoding` to the codings this build can read here (``acceptEncoding``:
/// `gzip, deflate, br, zstd` where libbrotlidec and libzstd are installed, `gzip, deflate`
/// where they are not) unless the request has one, and on a response in one of them it decodes
/// the body's bytes before any layer's hooks see them (wherever it sits in the stack, buffered
/// or streamed alike), and removes `Content-Encoding` and `Content-Length`, which describe the
/// encoded bytes. Other encodings pass through untouched. A corrupt or truncated body, or one
/// that grows past ``Limits``, fails with ``FaradayError/Code/decompressionFailed``; a buffered
/// body that decodes to more than ``RequestOptions/maxBufferedBodySize`` fails with
/// ``FaradayError/Code/bodyTooLarge``.
///
/// ``URLSessionAdapter`` hands over bodies URLSession has already decoded (without
/// `Content-Encoding`), which this middleware then leaves alone.
public struct Decompression: Middleware {
    /// The app below.
    public let app: any App
    /// The handler's settings.
    public let handler: Handler

    /// How far a body may grow when decoded.
    public struct Limits: Sendable {
        /// The most decoded bytes of one response.
        public var maximumSize: Int
        /// The most a body may grow, decoded bytes over encoded bytes…
        public var maximumRatio: Double
        /// …once this many bytes have been decoded (small bodies compress very well too).
        public var ratioGrace: Int

        /// Creates limits; by default 1 GiB, and 250 times past the first MiB (zlib's best is about
        /// 1000 times, on a run of zeros).
        public init(maximumSize: Int = 1 << 30, maximumRatio: Double = 250, ratioGrace: Int = 1 << 20) {
            self.maximumSize = maximumSize
            self.maximumRatio = maximumRatio
            self.ratioGrace = ratioGrace
        }
    }

    /// Builds ``Decompression``.
    public struct Handler: Faraday.Handler {
        /// The decoding limits.
        public var limits: Limits

        /// Creates the handler.
        public init(limits: Limits = Limits()) {
            self.limits = limits
        }

        public func build(app: any App) -> any Middleware { Decompression(app: app, handler: self) }
    }

    /// The codings this build can decode on this machine, as the `Accept-Encoding` it sends:
    /// `gzip, deflate`, then `br` and `zstd` where their system libraries load.
    public static var acceptEncoding: String { ContentCoding.acceptEncoding }

    public func onRequest(_ env: inout Env) async throws {
        if !env.request.headers.contains(.acceptEncoding) { env.request.headers[.acceptEncoding] = Self.acceptEncoding }
    }

    public func call(_ env: Env) async throws(FaradayError) -> Completions {
        let completions = try await app.call(env)
        guard var response = completions.head.response, let coding = Self.coding(response.headers) else {
            return completions
        }
        let decoder: ContentDecoder
        do {
            let options = env.request.options
            decoder = try ContentDecoder(
                coding: coding,
                limits: handler.limits,
                bufferedLimit: options.streaming == nil ? options.maxBufferedBodySize : nil
            )
        } catch {
            completions.cancel(with: error)
            throw error
        }
        var head = completions.head
        head.decodedContentEncoding = response.headers.singleValue(.contentEncoding)
        response.headers[.contentEncoding] = nil
        response.headers[.contentLength] = nil
        head.response = response
        completions.head = head
        return completions.transformBody(decoder)
    }

    /// The coding of a response's `Content-Encoding`, when this middleware decodes it here.
    private static func coding(_ headers: HTTPFields) -> ContentCoding? {
        headers.singleValue(.contentEncoding).flatMap { ContentCoding($0) }.flatMap { $0.isAvailable ? $0 : nil }
    }
}

extension Env {
    /// Fails with a clear ``FaradayError/Code/parsingFailed`` when the response body is still
    /// content-encoded: the stack has no ``Decompression``, or the encoding is one it does not
    /// read here (see ``Decompression/acceptEncoding``). Body decoders call it before parsing, so
    /// that gzip bytes are not reported as "not valid JSON".
    public func requireDecodedBody() throws(FaradayError) {
        guard let encoding = response?.headers.singleValue(.contentEncoding)?.trimmingHTTPWhitespace, !encoding.isEmpty,
            encoding.lowercasedASCII != "identity", response?.body.isEmpty == false
        else { return }
        let fix =
            ContentCoding(String(encoding))?.isAvailable == true
            ? "add Decompression to the stack (anywhere: it decodes before any completion hook runs)"
            : "Decompression reads \(Decompression.acceptEncoding) here; ask the server for one of them with Accept-Encoding"
        throw FaradayError(
            .parsingFailed,
            "The response body is still \(encoding)-encoded (Content-Encoding: \(encoding)): \(fix).",
            method: request.method,
            url: request.url,
            response: response
        )
    }
}

extension Env {
    private enum DecodedContentEncodingKey: EnvKey { typealias Value = String }

    /// The `Content-Encoding` that ``Decompression`` decoded and removed from the head, if it did:
    /// the body above it is not the one the server's ranges and validators count.
    var decodedContentEncoding: String? {
        get { self[DecodedContentEncodingKey.self] }
        set { self[DecodedContentEncodingKey.self] = newValue }
    }
}
