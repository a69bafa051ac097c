import Foundation
import Testing

@testable import Faraday
@testable import FaradayTestSupport

/// Brotli and Zstandard on the system's libraries, held to bodies the reference `brotli` and
/// `zstd` programs made (Resources/compression, with the commands in its README): whole, byte by
/// byte, cut short at every length, corrupted, followed by junk, and as bombs.
@Suite(.timeLimit(.minutes(2))) struct ContentCodingTests {
    static let pattern = Data((0..<300_000).map { UInt8($0 % 251) })
    static let zeros = Data(count: 200_000)
    static let text = Data(#"{"hello":"world","note":"déjà vu – 日本語"}"#.utf8)

    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: TextRoutes.fixtures.appending(path: name))
    }

    static let cases: [(name: String, coding: ContentCoding, plain: Data)] = [
        ("pattern-300000.br", .brotli, pattern), ("pattern-300000-window.br", .brotli, pattern),
        ("text.br", .brotli, text), ("pattern-300000.zst", .zstd, pattern),
        ("pattern-300000-two-frames.zst", .zstd, pattern), ("text.zst", .zstd, text),
        ("pattern-131072.zst", .zstd, pattern.prefix(131_072)), ("pattern-131072.br", .brotli, pattern.prefix(131_072)),
    ]

    private func decode(_ data: Data, _ coding: ContentCoding, pieceSize: Int? = nil) throws(FaradayError) -> Data {
        let decoder = try ContentDecoder(coding: coding, limits: Decompression.Limits())
        var output = Data()
        let size = pieceSize ?? max(data.count, 1)
        for start in stride(from: 0, to: data.count, by: size) {
            output.append(try decoder.decode(data.subdata(in: start..<min(start + size, data.count))))
        }
        output.append(try decoder.finish())
        return output
    }

    @Test func theLibrariesLoadOnLinux() {
        #if os(Linux)
        // .ci/run installs libbrotli1 and libzstd1: a missing one is a broken build machine.
        #expect(ContentCoding.brotli.isAvailable)
        #expect(ContentCoding.zstd.isAvailable)
        #endif
        #expect(Decompression.acceptEncoding.hasPrefix("gzip, deflate"))
    }

    /// Where a library is missing, its coding is not offered: the loader says so rather than fail.
    @Test func aMissingLibraryOrSymbolLoadsAsNothing() throws {
        #expect(SystemLibrary(["libfaraday-no-such-codec.so.1", "/nowhere/libz.so"]) == nil)
        #if os(Linux)
        let zstd = try #require(SystemLibrary(["libzstd.so.1"]))
        typealias VersionNumber = @convention(c) () -> UInt32
        #expect(zstd.function("ZSTD_noSuchFunction", as: VersionNumber.self) == nil)
        #expect((zstd.function("ZSTD_versionNumber", as: VersionNumber.self)?() ?? 0) >= 10_400)
        #endif
    }

    @Test(arguments: cases.map(\.name))
    func eachFixtureDecodesWholeAndByteByByte(_ name: String) throws {
        let (_, coding, plain) = try #require(Self.cases.first { $0.name == name })
        let data = try Self.fixture(name)
        #expect(try decode(data, coding) == plain)
        #expect(try decode(data, coding, pieceSize: 1) == plain)
        #expect(try decode(data, coding, pieceSize: 13) == plain)
    }

    /// Every body cut short, at every length, fails at its end, never returns as if whole. (Two
    /// zstd frames cut between them are one whole frame: that cut alone decodes, to its part.)
    @Test(arguments: cases.map(\.name))
    func everyTruncationFails(_ name: String) throws {
        let (_, coding, plain) = try #require(Self.cases.first { $0.name == name })
        let data = try Self.fixture(name)
        for length in 1..<data.count {
            do {
                let output = try decode(data.prefix(length), coding)
                #expect(
                    name.contains("two-frames") && output == plain.prefix(100_000),
                    "\(name) cut to \(length) bytes decoded"
                )
            } catch {
                #expect(error.code == .decompressionFailed)
            }
        }
    }

    @Test(arguments: cases.map(\.name))
    func junkAfterTheStreamFails(_ name: String) throws {
        let (_, coding, _) = try #require(Self.cases.first { $0.name == name })
        let data = try Self.fixture(name)
        for junk in [Data([0x00]), Data("trailing".utf8)] {
            #expect(throws: FaradayError.self, "\(name)") { try decode(data + junk, coding) }
        }
    }

    /// Flipping any byte gives an error or some body; never a crash or a hang. zstd's checksum
    /// catches most flips; Brotli has no checksum, and a flip often decodes to other bytes.
    @Test(arguments: cases.map(\.name))
    func corruptBytesNeverCrash(_ name: String) throws {
        let (_, coding, _) = try #require(Self.cases.first { $0.name == name })
        let data = try Self.fixture(name)
        var failures = 0
        for index in data.indices {
            var corrupt = data
            corrupt[index] ^= 0x5A
            do {
                _ = try decode(corrupt, coding)
            } catch {
                #expect(error.code == .decompressionFailed)
                failures += 1
            }
        }
        if coding == .zstd { #expect(failures > data.count / 2, "\(name): \(failures) of \(data.count) caught") }
    }

    /// 2 GiB of zeros stop at the ratio limit, having decoded little past it.
    @Test(arguments: [("zeros-2GiB.br", ContentCoding.brotli), ("zeros-2GiB.zst", .zstd)])
    func aBombStopsAtTheLimit(_ name: String, _ coding: ContentCoding) throws {
        let data = try Self.fixture(name)
        let limits = Decompression.Limits()
        let decoder = try ContentDecoder(coding: coding, limits: limits)
        var produced = 0
        let error = #expect(throws: FaradayError.self) {
            for start in stride(from: 0, to: data.count, by: 1024) {
                produced += try decoder.decode(data.subdata(in: start..<min(start + 1024, data.count))).count
            }
        }
        #expect(error?.code == .decompressionFailed)
        #expect(error?.message.contains("bomb") == true, "\(error?.message ?? "")")
        // The ratio allows 250 times what was read; decoding stopped within a window of that.
        #expect(produced < Int(limits.maximumRatio) * data.count + (1 << 20), "decoded \(produced) bytes")
    }

    @Test func theSizeLimitHoldsForEachCoding() throws {
        for (name, coding) in [("pattern-300000.br", ContentCoding.brotli), ("pattern-300000.zst", .zstd)] {
            let decoder = try ContentDecoder(coding: coding, limits: .init(maximumSize: 100_000))
            #expect(throws: FaradayError.self, "\(name)") { try decoder.decode(try Self.fixture(name)) }
        }
    }

    @Test func aZstdWindowPast8MiBIsRefused() throws {
        let data = try Self.fixture("pattern-300000-window16MiB.zst")
        let error = #expect(throws: FaradayError.self) { try decode(data, .zstd) }
        #expect(error?.code == .decompressionFailed)
    }

    /// Bodies whose decoded size falls at or near a multiple of the decoders' 64 KiB window, in
    /// one piece: a raw deflate stream has no trailer to keep input pending while zlib still holds
    /// output, and a zstd frame can end exactly at a window's end.
    @Test(arguments: [65_535, 65_536, 65_737, 131_072, 196_608])
    func bodiesEndingAtAWindowsEndDecodeWhole(_ size: Int) throws {
        for format in [Compressor.Format.gzip, .deflate, .raw] {
            let compressed = Compressor.compress(count: size, format: format) { _ in 0 }
            let coding: ContentCoding = format == .gzip ? .gzip : .deflate
            #expect(try decode(compressed, coding) == Self.zeros.prefix(size), "\(format) \(size)")
        }
    }

    @Test func anEmptyBodyIsWhole() throws {
        for coding in ContentCoding.allCases {
            #expect(try decode(Data(), coding).isEmpty)
        }
    }

    @Test(arguments: [("gzip", ContentCoding.gzip), ("X-GZIP", .gzip), (" br ", .brotli), ("ZSTD", .zstd)])
    func contentEncodingValuesNameCodings(_ value: String, _ coding: ContentCoding) {
        #expect(ContentCoding(value) == coding)
        #expect(ContentCoding("compress") == nil)
    }
}

extension ContentCodingTests {
    /// A buffered Brotli or zstd bomb, with the ratio limit raised as a user might: the buffered
    /// body's limit stops it within a window of output, although one small piece of input decodes
    /// to a gigabyte (Brotli's best ratio is over a million to one, deflate's about a thousand).
    @Test(arguments: [("zeros-2GiB.br", "br"), ("zeros-2GiB.zst", "zstd")])
    func aBufferedBombStopsAtTheBufferedLimitThroughTheStack(_ name: String, _ encoding: String) async throws {
        let bomb = try Self.fixture(name)
        let stubs = TestAdapter()
        stubs.get("/v1/bomb") { _, _ in
            StubResponse(headers: [.contentEncoding: encoding], body: bomb)
        }
        let connection = try Connection(url: "https://example.com/v1") { builder in
            builder.use(Decompression.Handler(limits: .init(maximumRatio: 1e9)))
            builder.adapter = stubs
        }
        let peakBefore = ProcessMemory.peak
        await #expect {
            try await connection.get("bomb") { $0.options.maxBufferedBodySize = 1 << 20 }.value
        } throws: { error in
            (error as? FaradayError)?.code == .bodyTooLarge
        }
        let growth = ProcessMemory.peak - peakBefore
        #expect(growth < 256 << 20, "peak memory grew by \(growth >> 20) MiB")
    }
}
