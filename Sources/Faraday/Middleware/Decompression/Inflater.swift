import CZlib
import Foundation

/// Streaming gzip and deflate decoding on zlib, with the limits that stop decompression bombs.
///
/// `deflate` is read as zlib-wrapped (RFC 1950) or raw (RFC 1951), whichever the first bytes
/// show, since servers send both. Concatenated gzip members are decoded one after the other.
final class Inflater: BodyTransform, @unchecked Sendable {
    // `@unchecked Sendable`: every stored property is only touched with `lock` held.
    enum Format: Sendable {
        case gzip, deflate
    }

    private let lock = Locked(())
    /// zlib's state, at one address for its whole life (zlib checks it on every call; a Swift
    /// stored property has no stable address to give).
    private let stream: UnsafeMutablePointer<z_stream>
    /// Where zlib writes, reused by every piece.
    private let window: UnsafeMutableBufferPointer<Bytef>
    private var isOpen = false
    private var isFinished = false
    private var pending = Data()
    private let format: Format
    private let limits: Decompression.Limits
    private var totalIn = 0
    private var totalOut = 0

    init(format: Format, limits: Decompression.Limits) {
        self.format = format
        self.limits = limits
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        window = .allocate(capacity: 64 * 1024)
    }

    deinit {
        if isOpen { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
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
        do {
            return try lock.withLock { _ in try locked_decode(input) }
        } catch let error as FaradayError {
            throw error
        } catch {
            throw Self.failure("Decoding failed: \(error)")
        }
    }

    /// Checks that the body ended where the compressed stream ends.
    func checkComplete() throws(FaradayError) {
        try lock.withLock { _ throws(FaradayError) in
            guard isFinished || (totalIn == 0 && pending.isEmpty) else {
                throw Self.failure("The compressed body ended before its compressed stream did (a truncated body).")
            }
        }
    }

    private func locked_decode(_ input: Data) throws -> Data {
        var input = input
        if !isOpen {
            pending.append(input)
            guard format == .gzip || pending.count >= 2 else { return Data() }
            input = pending
            pending = Data()
            try locked_open(windowBits: windowBits(for: input))
        }
        guard !input.isEmpty else { return Data() }
        if isFinished {
            // A gzip member may end exactly at a chunk's end: the next chunk starts another.
            guard format == .gzip else { throw Self.failure("Bytes follow the end of the compressed stream.") }
            inflateReset(stream)
            isFinished = false
        }
        totalIn += input.count
        var output = Data()
        guard let start = window.baseAddress else { throw Self.failure("No memory to decode into.") }
        try input.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            guard let base = raw.bindMemory(to: Bytef.self).baseAddress else { return }
            stream.pointee.next_in = UnsafeMutablePointer(mutating: base)
            stream.pointee.avail_in = uInt(raw.count)
            defer { stream.pointee.next_in = nil }
            while stream.pointee.avail_in > 0 {
                stream.pointee.next_out = start
                stream.pointee.avail_out = uInt(window.count)
                let result = inflate(stream, Z_NO_FLUSH)
                output.append(start, count: window.count - Int(stream.pointee.avail_out))
                try checkLimits(produced: output.count, consumed: totalIn - Int(stream.pointee.avail_in))
                switch result {
                case Z_OK, Z_BUF_ERROR: continue
                case Z_STREAM_END:
                    if format == .gzip && stream.pointee.avail_in > 0 {
                        inflateReset(stream)  // another gzip member follows
                    } else {
                        if stream.pointee.avail_in > 0 {
                            throw Self.failure("Bytes follow the end of the compressed stream.")
                        }
                        isFinished = true
                    }
                default:
                    throw Self.failure("The compressed body is corrupt (zlib error \(result)).")
                }
            }
        }
        totalOut += output.count
        return output
    }

    /// Checks the output so far against the limits; `consumed` counts the input zlib has read,
    /// not the input handed over (a large piece must not buy room for its unread bytes).
    private func checkLimits(produced: Int, consumed: Int) throws(FaradayError) {
        let out = totalOut + produced
        if out > limits.maximumSize {
            throw Self.failure("The decompressed body is larger than \(limits.maximumSize) bytes.")
        }
        if out > limits.ratioGrace && Double(out) > Double(max(consumed, 1)) * limits.maximumRatio {
            throw Self.failure(
                "The body decompresses more than \(Int(limits.maximumRatio)) times its size (a decompression bomb?)."
            )
        }
    }

    private func windowBits(for firstBytes: Data) -> Int32 {
        switch format {
        case .gzip: return 15 + 16
        case .deflate:
            let bytes = Array(firstBytes.prefix(2))
            let isZlib =
                bytes.count == 2 && bytes[0] & 0x0F == 8 && (UInt16(bytes[0]) << 8 | UInt16(bytes[1])) % 31 == 0
            return isZlib ? 15 : -15
        }
    }

    private func locked_open(windowBits: Int32) throws(FaradayError) {
        let result = inflateInit2_(stream, windowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard result == Z_OK else { throw Self.failure("zlib could not start (error \(result)).") }
        isOpen = true
    }

    private static func failure(_ message: String) -> FaradayError {
        FaradayError(.decompressionFailed, message)
    }
}
