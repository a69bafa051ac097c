import Foundation
import Testing

@testable import Faraday

/// A second loop over one handle's completions (issue 45): bounded, and gone once it ends.
@Suite(.timeLimit(.minutes(1))) struct FollowingLoopTests {
    private func streamingCall(lines: Int, ending: StubResponse.Ending) throws -> Response {
        let stubs = TestAdapter()
        stubs.get("/v1/lines") { _, _ in
            StubResponse(body: ResponseBody(pieces: (0..<lines).map { Data("\($0)\n".utf8) }), ending: ending)
        }
        let connection = try makeConnection(adapter: stubs)
        return connection.get("lines") { $0.options.streaming = .lines }
    }

    /// Waits (a hang guard bounds it) until `condition` holds.
    private func eventually(_ condition: () -> Bool) async {
        while !condition() && !Task.isCancelled { await Task.yield() }
    }

    @Test func aLoopThatFallsBehindReadsItsBacklogThenFails() async throws {
        let response = try streamingCall(lines: Response.followerBacklog * 2 + 50, ending: .finish)
        var driver = response.completions.makeAsyncIterator()
        _ = try await driver.next()
        let gate = AsyncStream<Void>.makeStream()
        let follower = Task { () -> (received: Int, error: FaradayError?) in
            var iterator = response.completions.makeAsyncIterator()
            var received = 0
            do {
                _ = try await iterator.next()
                received += 1
                for await _ in gate.stream {}  // falls behind until the driver is done
                while try await iterator.next() != nil { received += 1 }
                return (received, nil)
            } catch {
                return (received, error as? FaradayError)
            }
        }
        await eventually { response.followerCount == 1 }
        while let env = try await driver.next(), !env.isFinal {}
        gate.continuation.finish()
        let (received, error) = await follower.value
        #expect(error?.code == .bodyTooLarge)
        #expect(
            received == 1 + Response.followerBacklog,
            "the backlog is read before the failure: nothing silently lost"
        )
    }

    @Test func aLoopThatIsLeftStopsFollowingAtOnce() async throws {
        let response = try streamingCall(lines: 3, ending: .waitForCancellation)
        var driver = response.completions.makeAsyncIterator()
        _ = try await driver.next()
        let follower = Task {
            var iterator = response.completions.makeAsyncIterator()
            return try await iterator.next()
        }
        await eventually { response.followerCount == 1 }
        follower.cancel()
        let error = await #expect(throws: FaradayError.self) { try await follower.value }
        #expect(error?.code == .cancelled, "a cancelled loop is told so, not handed the end of the response")
        await eventually { response.followerCount == 0 }
        #expect(!response.isFinished, "the call goes on for its driver")
        response.cancel()
    }
}
