#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One content coding's decompressor, fed a body's pieces in order. Each is used under its
/// ``ContentDecoder``'s lock, one piece at a time.
protocol Decompressor: AnyObject {
    /// Decodes `input` through `window` (where the library writes, 64 KiB, reused by every
    /// piece), appending what it decodes to `output` and checking `budget` after every window,
    /// so that a bomb stops at the limit and not after the piece.
    func decompress(
        _ input: UnsafeRawBufferPointer,
        window: UnsafeMutableBufferPointer<UInt8>,
        into output: inout Data,
        budget: inout DecodedSize
    )
        throws(FaradayError)
    /// Whether the input so far ends where a compressed stream ends (a body may end here).
    var isAtEnd: Bool { get }
}

/// How much a body has decoded against ``Decompression/Limits``: the check that stops bombs.
struct DecodedSize {
    let limits: Decompression.Limits
    /// The buffered body's limit (``RequestOptions/maxBufferedBodySize``) when the body is read
    /// whole: checked here, within one window of output, since a few bytes of Brotli can decode
    /// to a gigabyte before the reader sees the piece's output.
    let bufferedLimit: Int?
    /// Compressed bytes the decompressor has read, before this piece.
    private(set) var consumed = 0
    /// Decoded bytes, before this piece.
    private(set) var produced = 0

    /// Checks the body so far, with `output` bytes decoded from `input` bytes of this piece: the
    /// input the decompressor has read, not the input handed over (a large piece must not buy
    /// room for its unread bytes).
    func check(output: Int, input: Int) throws(FaradayError) {
        let out = produced + output
        if let bufferedLimit, out > bufferedLimit {
            throw FaradayError(
                .bodyTooLarge,
                "The decoded response body is larger than \(bufferedLimit) bytes (RequestOptions.maxBufferedBodySize)."
            )
        }
        if out > limits.maximumSize {
            throw FaradayError(
                .decompressionFailed,
                "The decompressed body is larger than \(limits.maximumSize) bytes."
            )
        }
        if out > limits.ratioGrace && Double(out) > Double(max(consumed + input, 1)) * limits.maximumRatio {
            throw FaradayError(
                .decompressionFailed,
                "The body decompresses more than \(Int(limits.maximumRatio)) times its size (a decompression bomb?)."
            )
        }
    }

    /// Counts a piece once it is decoded.
    mutating func add(output: Int, input: Int) {
        produced += output
        consumed += input
    }
}

/// Decodes a body in one content coding, piece by piece, within ``Decompression/Limits``.
final class ContentDecoder: BodyTransform, @unchecked Sendable {
    // `@unchecked Sendable`: the decompressor and the budget are only touched with `lock` held.
    private let lock = Locked(())
    private let decompressor: any Decompressor
    private var budget: DecodedSize
    /// Where the decompressor writes, reused by every piece.
    private let window = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 64 * 1024)
    private var hasInput = false

    /// A decoder for `coding`, within `limits` and, for a body read whole, `bufferedLimit`;
    /// fails when this build cannot read the coding (its library is missing).
    init(coding: ContentCoding, limits: Decompression.Limits, bufferedLimit: Int? = nil) throws(FaradayError) {
        decompressor = try coding.makeDecompressor()
        budget = DecodedSize(limits: limits, bufferedLimit: bufferedLimit)
    }

    deinit {
        window.deallocate()
    }

    /// Decodes the next piece of the body.
    func transform(_ chunk: Data) throws(FaradayError) -> Data { try decode(chunk) }

    /// Checks that the body ended where the compressed stream ends; nothing is left to decode.
    func finish() throws(FaradayError) -> Data {
        try checkComplete()
        return Data()
    }

    /// Decodes the next piece of the body.
    func decode(_ input: Data) throws(FaradayError) -> Data {
        try lock.withLock { _ throws(FaradayError) -> Data in
            guard !input.isEmpty else { return Data() }
            hasInput = true
            var output = Data()
            let result = input.withUnsafeBytes { raw in
                Result { () throws(FaradayError) in
                    try decompressor.decompress(raw, window: window, into: &output, budget: &budget)
                }
            }
            try result.get()
            return output
        }
    }

    /// Checks that the body ended where the compressed stream ends.
    func checkComplete() throws(FaradayError) {
        try lock.withLock { _ throws(FaradayError) in
            guard decompressor.isAtEnd || !hasInput else {
                throw FaradayError(
                    .decompressionFailed,
                    "The compressed body ended before its compressed stream did (a truncated body)."
                )
            }
        }
    }
}
