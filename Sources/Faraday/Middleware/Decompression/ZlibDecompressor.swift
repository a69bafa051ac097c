import CZlib

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// gzip and deflate on zlib.
///
/// `deflate` is read as zlib-wrapped (RFC 1950) or raw (RFC 1951), whichever the first bytes
/// show, since servers send both. Concatenated gzip members are decoded one after the other.
final class ZlibDecompressor: Decompressor {
    private let isGzip: Bool
    /// zlib's state, at one address for its whole life (zlib checks it on every call; a Swift
    /// stored property has no stable address to give).
    private let stream: UnsafeMutablePointer<z_stream>
    private var isOpen = false
    private var isFinished = false
    /// The first byte of a deflate body, kept until the second shows which kind it is.
    private var pending: [UInt8] = []

    init(gzip: Bool) {
        isGzip = gzip
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
    }

    deinit {
        if isOpen { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    var isAtEnd: Bool { isFinished }

    func decompress(
        _ input: UnsafeRawBufferPointer,
        window: UnsafeMutableBufferPointer<UInt8>,
        into output: inout Data,
        budget: inout DecodedSize
    )
        throws(FaradayError)
    {
        if !isOpen {
            guard isGzip || pending.count + input.count >= 2 else {
                pending.append(contentsOf: input)
                return
            }
            try open(windowBits: windowBits(firstBytes: pending + input.prefix(2 - pending.count)))
            if !pending.isEmpty {
                let held = pending + input
                pending = []
                let result = held.withUnsafeBytes { held in
                    Result { () throws(FaradayError) in try decode(held, window: window, into: &output, budget: &budget)
                    }
                }
                return try result.get()
            }
        }
        try decode(input, window: window, into: &output, budget: &budget)
    }

    /// Decodes `input` once zlib is open.
    private func decode(
        _ input: UnsafeRawBufferPointer,
        window: UnsafeMutableBufferPointer<UInt8>,
        into output: inout Data,
        budget: inout DecodedSize
    )
        throws(FaradayError)
    {
        guard let base = input.bindMemory(to: Bytef.self).baseAddress, let start = window.baseAddress else { return }
        if isFinished {
            // A gzip member may end exactly at a piece's end: the next piece starts another.
            guard isGzip else { throw Self.failure("Bytes follow the end of the compressed stream.") }
            inflateReset(stream)
            isFinished = false
        }
        stream.pointee.next_in = UnsafeMutablePointer(mutating: base)
        stream.pointee.avail_in = uInt(input.count)
        defer { stream.pointee.next_in = nil }
        let before = output.count
        // Until the input is read and zlib has nothing more to write: a full window may hold back
        // output of input already read (raw deflate has no trailer to keep `avail_in` above 0).
        while !isFinished && (stream.pointee.avail_in > 0 || stream.pointee.avail_out == 0) {
            stream.pointee.next_out = start
            stream.pointee.avail_out = uInt(window.count)
            let result = inflate(stream, Z_NO_FLUSH)
            output.append(start, count: window.count - Int(stream.pointee.avail_out))
            try budget.check(output: output.count - before, input: input.count - Int(stream.pointee.avail_in))
            switch result {
            case Z_OK:
                continue
            case Z_BUF_ERROR:
                guard stream.pointee.avail_in > 0 else { break }  // nothing more to write yet
                continue
            case Z_STREAM_END:
                if isGzip && stream.pointee.avail_in > 0 {
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
        budget.add(output: output.count - before, input: input.count)
    }

    private func windowBits(firstBytes bytes: [UInt8]) -> Int32 {
        guard !isGzip else { return 15 + 16 }
        let isZlib = bytes.count == 2 && bytes[0] & 0x0F == 8 && (UInt16(bytes[0]) << 8 | UInt16(bytes[1])) % 31 == 0
        return isZlib ? 15 : -15
    }

    private func open(windowBits: Int32) throws(FaradayError) {
        let result = inflateInit2_(stream, windowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard result == Z_OK else { throw Self.failure("zlib could not start (error \(result)).") }
        isOpen = true
    }

    private static func failure(_ message: String) -> FaradayError {
        FaradayError(.decompressionFailed, message)
    }
}
