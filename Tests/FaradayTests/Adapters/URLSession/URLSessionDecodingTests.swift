import Foundation
import HTTPTypes
import Testing

@testable import Faraday

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How URLSessionAdapter marks a body in an encoding the platform may or may not decode (zstd):
/// by its first bytes. The conformance suite sees the platform's own answer; these cover both.
@Suite struct URLSessionDecodingTests {
    private func fields(encoding: String, bodyStart: [UInt8]?) throws -> HTTPFields {
        let url = try #require(URL(string: "https://example.com/"))
        let response = try #require(
            HTTPURLResponse(
                url: url,
                statusCode: 200,
                httpVersion: "HTTP/1.1",
                headerFields: ["Content-Encoding": encoding, "Content-Length": "29"]
            )
        )
        return URLSessionAdapter.fields(response, bodyStart: bodyStart.map { Data($0) })
    }

    @Test func aZstdBodyHandedOverAsSentStaysMarked() throws {
        let fields = try fields(encoding: "zstd", bodyStart: URLSessionAdapter.zstdMagic + [0x04, 0x68])
        #expect(fields[.contentEncoding] == "zstd")
        #expect(fields[.contentLength] == "29")
    }

    @Test(arguments: [Array(#"{"hello":"zstd"}"#.utf8), []])
    func aZstdBodyThePlatformDecodedIsUnmarked(_ bodyStart: [UInt8]) throws {
        let fields = try fields(encoding: "zstd", bodyStart: bodyStart)
        #expect(fields[.contentEncoding] == nil)
        #expect(fields[.contentLength] == nil)
    }

    @Test func gzipIsDecodedWhateverItsBytesAndOtherEncodingsAsSent() throws {
        #expect(try fields(encoding: "gzip", bodyStart: URLSessionAdapter.zstdMagic)[.contentEncoding] == nil)
        #expect(try fields(encoding: "compress", bodyStart: [0x7B])[.contentEncoding] == "compress")
    }
}

/// The read-ahead that lets a streamed zstd head wait for the body's first bytes.
@Suite struct ReadAheadTests {
    private func read(_ parts: [[UInt8]]) async throws -> URLSessionAdapter.ReadAhead {
        let queue = Locked(parts)
        return try await URLSessionAdapter.ReadAhead.read(atLeast: 4) {
            queue.withLock { $0.isEmpty ? nil : Data($0.removeFirst()) }
        }
    }

    @Test func shortPartsAreReadUntilFourBytesAreInHand() async throws {
        let ahead = try await read([[0x28, 0xB5], [0x2F], [0xFD, 0x04], [0x68]])
        #expect(ahead.parts.map(Array.init) == [0x28, 0xB5, 0x2F, 0xFD, 0x04])
        #expect(!ahead.ended)
    }

    @Test func aStreamThatEndsFirstIsMarkedEnded() async throws {
        let empty = try await read([])
        #expect(empty.parts == nil && empty.ended)
        let short = try await read([[0x7B, 0x7D]])
        #expect(short.parts.map(Array.init) == [0x7B, 0x7D] && short.ended)
    }
}
