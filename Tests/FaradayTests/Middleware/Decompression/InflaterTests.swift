import Foundation
import Testing

@testable import Faraday
@testable import FaradayTestSupport

/// zlib's state lives at one address for an inflater's whole life (issue 45): zlib checks, on
/// every call, that the stream it is handed is the one it initialised, and a Swift stored
/// property has no stable address to hand it.
@Suite(.timeLimit(.minutes(1))) struct InflaterTests {
    /// The state is allocated, not stored: no `z_stream` among the inflater's stored properties.
    /// (A stored one would work in most builds, and fail with `Z_STREAM_ERROR` only where Swift
    /// moved it; this keeps it from coming back.)
    @Test func zlibsStateIsNotAStoredProperty() {
        let inflater = ZlibDecompressor(gzip: true)
        let stored = Mirror(reflecting: inflater).children.map { "\(type(of: $0.value))" }
        #expect(!stored.contains("z_stream"), "\(stored)")
        #expect(stored.contains { $0.contains("UnsafeMutablePointer<z_stream") })
    }

    /// Many inflaters fed one byte at a time, interleaved: each keeps its own state across
    /// thousands of zlib calls.
    @Test(arguments: [ContentCoding.gzip, .deflate])
    func interleavedInflatersFedByteByByteEachDecodeTheirBody(_ format: ContentCoding) throws {
        let pattern = { (index: Int, offset: Int) in UInt8((offset * (index + 3)) % 251) }
        let bodies = (0..<8).map { index in Data((0..<4096).map { pattern(index, $0) }) }
        let encoded = bodies.indices.map { index in
            Compressor.compress(count: 4096, format: format == .gzip ? .gzip : .deflate) { pattern(index, $0) }
        }
        let inflaters = try bodies.map { _ in try ContentDecoder(coding: format, limits: Decompression.Limits()) }
        var decoded = bodies.map { _ in Data() }
        let longest = encoded.map(\.count).max() ?? 0
        for offset in 0..<longest {
            for index in encoded.indices where offset < encoded[index].count {
                let byte = encoded[index].subdata(in: offset..<offset + 1)
                decoded[index].append(try inflaters[index].decode(byte))
            }
        }
        for index in bodies.indices {
            try inflaters[index].checkComplete()
            #expect(decoded[index] == bodies[index])
        }
    }
}
