import Faraday
import Foundation
import Testing

/// The one response body type: in memory, a file's range, a live stream; whole or in pieces.
@Suite(.timeLimit(.minutes(1))) struct ResponseBodyTests {
    private func pieces(_ body: ResponseBody, size: Int = 64 * 1024) async throws -> [String] {
        var pieces: [String] = []
        for try await piece in body.pieces(size: size) { pieces.append(String(decoding: piece, as: UTF8.self)) }
        return pieces
    }

    private func file(_ text: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("body-\(UUID().uuidString)")
        try Data(text.utf8).write(to: url)
        return url
    }

    @Test func bytesInMemoryKeepTheirPiecesAndTheirLength() async throws {
        let body = ResponseBody(pieces: [Data("ab".utf8), Data(), Data("cde".utf8)])
        #expect(body.length == 5 && body.isReplayable)
        #expect(try await pieces(body) == ["ab", "cde"], "an empty piece is no piece")
        #expect(try await pieces(body) == ["ab", "cde"], "and they can be read again")
        #expect(body.bytes() == Data("abcde".utf8))
        #expect(ResponseBody("").length == 0 && ResponseBody.empty.bytes() == Data())
    }

    @Test func aFilesRangeIsReadAPieceAtATime() async throws {
        let url = try file("0123456789")
        defer { try? FileManager.default.removeItem(at: url) }
        let body = ResponseBody(file: url, offset: 2, length: 7)
        #expect(body.length == 7 && body.isReplayable)
        #expect(try await pieces(body, size: 3) == ["234", "567", "8"])
        #expect(body.bytes() == Data("2345678".utf8))
    }

    @Test func aFileCutShortFailsWithATypedErrorNotAShortBody() async throws {
        let url = try file("0123")
        defer { try? FileManager.default.removeItem(at: url) }
        let body = ResponseBody(file: url, length: 10)
        #expect(body.bytes() == nil)
        let error = await #expect(throws: FaradayError.self) { try await body.collect(upTo: 100) }
        #expect(error?.code == .storageFailed)
        let missing = ResponseBody(file: url.appendingPathExtension("gone"), length: 1)
        #expect(missing.bytes() == nil)
        await #expect(throws: FaradayError.self) { try await missing.collect(upTo: 100) }
    }

    @Test func aLiveStreamIsReadOnceAndWithinTheLimit() async throws {
        let (stream, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        for piece in ["a", "bb", "ccc"] { continuation.yield(Data(piece.utf8)) }
        continuation.finish()
        let body = ResponseBody(stream: ByteStream(stream))
        #expect(body.length == nil && !body.isReplayable && body.bytes() == nil)
        let error = await #expect(throws: FaradayError.self) { try await body.collect(upTo: 5) }
        #expect(error?.code == .bodyTooLarge)
    }

    /// A stub may answer with a live stream: a buffered request gets it whole, a streamed one a
    /// completion per piece; a stream that fails fails the call with its error.
    @Test func aStubAnswersWithAnyBody() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/live") { _, _ in
            let (stream, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
            for piece in ["x", "y"] { continuation.yield(Data(piece.utf8)) }
            continuation.finish()
            return StubResponse(body: ResponseBody(stream: ByteStream(stream)))
        }
        stubs.get("/v1/broken") { _, _ in
            let (stream, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
            continuation.yield(Data("x".utf8))
            continuation.finish(throwing: FaradayError(.connectionFailed, "reset"))
            return StubResponse(body: ResponseBody(stream: ByteStream(stream)))
        }
        let connection = try makeConnection(adapter: stubs)
        #expect(try await connection.get("live").value.response?.text == "xy")
        var frames: [String] = []
        for try await env in connection.get("live", streaming: .chunks).completions where !env.isFinal {
            frames.append(env.response?.text ?? "")
        }
        #expect(frames == ["x", "y"])
        let error = await #expect(throws: FaradayError.self) { try await connection.get("broken").value }
        #expect(error?.code == .connectionFailed && error?.url?.path == "/v1/broken")
    }
}
