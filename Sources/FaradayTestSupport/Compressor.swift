import CZlib
import Foundation

/// Compresses test bodies with zlib: gzip, zlib-wrapped deflate, or raw deflate.
enum Compressor {
    enum Format: String { case gzip, deflate, raw }

    /// `count` bytes made by `byte(offset)`, compressed, fed to zlib a megabyte at a time so
    /// that a huge body (a decompression bomb) never sits in memory uncompressed.
    static func compress(count: Int, format: Format, byte: (Int) -> UInt8) -> Data {
        var stream = z_stream()
        let windowBits: Int32 =
            switch format {
            case .gzip: 15 + 16
            case .deflate: 15
            case .raw: -15
            }
        guard
            deflateInit2_(
                &stream,
                Z_BEST_COMPRESSION,
                Z_DEFLATED,
                windowBits,
                8,
                Z_DEFAULT_STRATEGY,
                zlibVersion(),
                Int32(MemoryLayout<z_stream>.size)
            ) == Z_OK
        else {
            return Data()
        }
        defer { deflateEnd(&stream) }
        var output = Data()
        var outBuffer = [UInt8](repeating: 0, count: 64 * 1024)
        var offset = 0
        repeat {
            let size = min(1 << 20, count - offset)
            var input = [UInt8](repeating: 0, count: size)
            for index in 0..<size { input[index] = byte(offset + index) }
            offset += size
            let flush = offset >= count ? Z_FINISH : Z_NO_FLUSH
            input.withUnsafeMutableBufferPointer { inBuffer in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = uInt(inBuffer.count)
                var result: Int32 = Z_OK
                repeat {
                    outBuffer.withUnsafeMutableBufferPointer { out in
                        stream.next_out = out.baseAddress
                        stream.avail_out = uInt(out.count)
                        result = deflate(&stream, flush)
                        if let base = out.baseAddress { output.append(base, count: out.count - Int(stream.avail_out)) }
                    }
                } while stream.avail_out == 0
                    || (flush == Z_FINISH && result != Z_STREAM_END && result != Z_STREAM_ERROR)
            }
        } while offset < count
        return output
    }
}
