import Faraday
import Foundation
import Testing

@Suite(.timeLimit(.minutes(1))) struct RequestBodyTests {
    private func chunks(_ parts: [String]) -> AsyncStream<Data> {
        AsyncStream { continuation in
            for part in parts { continuation.yield(Data(part.utf8)) }
            continuation.finish()
        }
    }

    @Test func aOneShotBodyIsRefusedOnASecondCall() async throws {
        let stubs = TestAdapter()
        stubs.stub(.post, .path("/v1/upload"), body: .equals("abc"), response: StubResponse(status: .created))
        let connection = try makeConnection([CallTwice.Handler()], adapter: stubs)

        await #expect {
            try await connection.post("upload", body: .stream(chunks(["a", "b", "c"]))).value
        } throws: { error in
            (error as? FaradayError)?.code == .bodyNotReplayable
        }
        #expect(stubs.calls.count == 2)
    }

    @Test func aReplayableStreamIsSentAgainWhole() async throws {
        let stubs = TestAdapter()
        stubs.stub(.post, .path("/v1/upload"), body: .equals("abc"), response: StubResponse(status: .created))
        let connection = try makeConnection([CallTwice.Handler()], adapter: stubs)
        let body = RequestBody.stream(length: 3) { self.chunks(["a", "b", "c"]) }
        #expect(body.isReplayable)
        let env = try await connection.post("upload", body: body).value
        #expect(env.status == .created)
        #expect(stubs.calls.count == 2)
    }

    @Test func bodiesDescribeThemselves() throws {
        #expect(RequestBody.bytes(Data("xy".utf8)).length == 2)
        #expect(RequestBody.empty.isEmpty)
        #expect(RequestBody.stream(chunks([])).isReplayable == false)
        #expect(RequestBody.value(["a": 1]).value != nil)
    }

    @Test func aValueNoMiddlewareEncodedIsAnErrorBeforeSending() async throws {
        let stubs = TestAdapter()
        let connection = try makeConnection(adapter: stubs)
        await #expect {
            try await connection.post("x", body: .value(["a": 1])).value
        } throws: { error in
            (error as? FaradayError)?.code == .encodingFailed
        }
    }

    @Test func collectingIsBounded() async throws {
        await #expect {
            try await RequestBody.stream(chunks(["abc", "def"])).collect(upTo: 4)
        } throws: { error in
            (error as? FaradayError)?.code == .bodyTooLarge
        }
    }
}
