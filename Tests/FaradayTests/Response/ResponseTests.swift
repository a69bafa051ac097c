import Faraday
import Foundation
import Testing

@Suite(.timeLimit(.minutes(1))) struct ResponseTests {
    private func streamingConnection(_ response: StubResponse) throws -> (Connection, TestAdapter) {
        let stubs = TestAdapter()
        stubs.stub(.get, .path("/v1/stream"), response: response)
        return (try makeConnection(adapter: stubs), stubs)
    }

    @Test func aCallbackAddedAfterTheCallFinishedRunsAtOnce() async throws {
        let stubs = TestAdapter()
        stubs.stub(.get, .path("/v1/x"), response: StubResponse(body: "done"))
        let response = try makeConnection(adapter: stubs).get("x")
        _ = try await response.value

        let seen = Locked<String?>(nil)
        response.onComplete { env in seen.withLock { $0 = env.response?.text } }
        #expect(seen.withLock { $0 } == "done")
    }

    @Test func theHeadIsKnownBeforeAnyFrameIsPulled() async throws {
        let (connection, stubs) = try streamingConnection(
            StubResponse(
                status: .accepted,
                headers: [.contentType: "text/plain"],
                body: ResponseBody(pieces: [Data("a".utf8)])
            )
        )
        let response = connection.get("stream") { $0.options.streaming = .chunks }

        let head = try await response.head
        #expect(head.status == .accepted)
        #expect(head.responseHeaders.contentType == "text/plain")
        #expect(stubs.chunksSent == 0)

        let final = try await response.value
        #expect(final.isFinal)
        #expect(stubs.chunksSent == 1)
    }

    @Test func valueAwaitedTwiceGivesTheSameResultWithoutASecondRequest() async throws {
        let stubs = TestAdapter()
        stubs.stub(.get, .path("/v1/x"), response: StubResponse(body: "once"))
        let response = try makeConnection(adapter: stubs).get("x")
        async let first = response.value
        async let second = response.value
        let (a, b) = try await (first, second)
        #expect(a.body == b.body)
        #expect(stubs.calls.count == 1)
    }

    @Test func cancellingTheAwaitingTaskReachesTheAdapter() async throws {
        let stubs = TestAdapter()
        stubs.stub(.get, .path("/v1/hang"), response: .noResponse)
        let connection = try makeConnection(adapter: stubs)

        let task = Task { try await connection.get("hang").value }
        while stubs.calls.isEmpty { await Task.yield() }
        task.cancel()
        await #expect {
            try await task.value
        } throws: { error in
            (error as? FaradayError)?.code == .cancelled
        }
        #expect(stubs.cancelledCalls == 1)
    }

    @Test func responseCancelStopsACallRunningInACallbackTask() async throws {
        let stubs = TestAdapter()
        stubs.stub(.get, .path("/v1/hang"), response: .noResponse)
        let connection = try makeConnection(adapter: stubs)

        let failures = Recorder()
        let response = connection.get("hang").onFailure { failures.record("\($0.code)") }
        while stubs.calls.isEmpty { await Task.yield() }
        response.cancel()
        await #expect(throws: FaradayError.self) { try await response.value }
        #expect(failures.log == ["cancelled"])
        while stubs.cancelledCalls == 0 { await Task.yield() }
        #expect(stubs.cancelledCalls == 1)
    }

    @Test func envCancelInACallbackStopsTheStreamWithOneFinalCancelledCompletion() async throws {
        let chunks = (0..<100).map { Data("\($0)".utf8) }
        let (connection, stubs) = try streamingConnection(StubResponse(body: ResponseBody(pieces: chunks)))
        let phases = Recorder()

        let response = connection.get("stream") { $0.options.streaming = .chunks }
        response.onComplete { env in
            phases.record(env.error.map { "\(env.phase) \($0.code)" } ?? "\(env.phase)")
            if env.phase == .frame(2) { env.cancel() }
        }
        await #expect(throws: FaradayError.self) { try await response.value }
        #expect(phases.log == ["frame(0)", "frame(1)", "frame(2)", "final cancelled"])
        #expect(stubs.chunksSent == 3)
    }

    @Test func leavingTheLoopEarlyCancelsTheCall() async throws {
        let (connection, stubs) = try streamingConnection(
            StubResponse(body: ResponseBody(pieces: [Data("a".utf8)]), ending: .waitForCancellation)
        )
        let response = connection.get("stream") { $0.options.streaming = .chunks }
        for try await env in response.completions {
            #expect(env.phase == .frame(0))
            break
        }
        await #expect {
            try await response.value
        } throws: { error in
            (error as? FaradayError)?.code == .cancelled
        }
        #expect(stubs.chunksSent == 1)
    }

    /// A loop between two pulls is out of the pull loop: `cancel()` ends the call there and then,
    /// for every layer and callback, without waiting for a pull that may never come.
    @Test func cancelBetweenTwoPullsOfALoopEndsTheCallAtOnce() async throws {
        let (connection, _) = try streamingConnection(
            StubResponse(body: ResponseBody(pieces: [Data("a".utf8), Data("b".utf8)]), ending: .waitForCancellation)
        )
        let response = connection.get("stream") { $0.options.streaming = .chunks }
        var iterator = response.completions.makeAsyncIterator()
        let first = try await iterator.next()
        #expect(first?.phase == .frame(0))
        // Added once the loop pulls, so that no task of its own starts to run the call.
        let failure = Locked<FaradayError?>(nil)
        response.onFailure { error in failure.withLock { $0 = error } }
        response.cancel()
        #expect(response.isFinished, "the loop is not pulling: the call ends in cancel() itself")
        #expect(failure.withLock { $0 }?.code == .cancelled)
        await #expect(throws: FaradayError.self) { try await iterator.next() }
    }

    /// A `cancel()` during a loop's pull leaves the end to the loop: the pull returns its frame,
    /// and the call ends before the loop's body runs, not at a next pull that may never come.
    @Test func aCancelDuringALoopsPullEndsTheCallOnceThePullReturns() async throws {
        let pieces = ["a", "b", "c"].map { Data($0.utf8) }
        let (connection, _) = try streamingConnection(
            StubResponse(body: ResponseBody(pieces: pieces), ending: .waitForCancellation)
        )
        let response = connection.get("stream") { $0.options.streaming = .chunks }
        var iterator = response.completions.makeAsyncIterator()
        _ = try await iterator.next()
        // Added once the loop pulls; it runs inside the loop's next pull.
        response.onComplete { env in
            if env.phase == .frame(1) { response.cancel() }
        }
        let second = try await iterator.next()
        #expect(second?.phase == .frame(1))
        #expect(response.isFinished, "ended when the pull returned, not at the next one")
        await #expect(throws: FaradayError.self) { try await iterator.next() }
    }

    @Test func aSlowConsumerSlowsTheTransfer() async throws {
        let chunks = (0..<10).map { Data("\($0)".utf8) }
        let (connection, stubs) = try streamingConnection(StubResponse(body: ResponseBody(pieces: chunks)))
        let response = connection.get("stream") { $0.options.streaming = .chunks }
        var pulled: [Int] = []
        for try await env in response.completions where !env.isFinal {
            // The adapter has handed out exactly the frames consumed so far: nothing runs ahead.
            pulled.append(stubs.chunksSent)
            await Task.yield()
        }
        #expect(pulled == Array(1...10))
    }

    @Test func waitBlocksOnlyItsThreadAndReturnsTheFinalEnv() throws {
        let stubs = TestAdapter()
        stubs.stub(.get, .path("/v1/x"), response: StubResponse(body: "sync"))
        let env = try makeConnection(adapter: stubs).get("x").wait()
        #expect(env.response?.text == "sync")
    }

    @Test func waitWithATimeoutCancelsTheCall() throws {
        let stubs = TestAdapter()
        stubs.stub(.get, .path("/v1/hang"), response: .noResponse)
        #expect {
            try makeConnection(adapter: stubs).get("hang").wait(timeout: .milliseconds(50))
        } throws: { error in
            (error as? FaradayError)?.code == .callTimeout
        }
    }

    @Test func aFailedCallGivesAFinalEnvWithTheErrorToCallbacks() async throws {
        let stubs = TestAdapter()
        let connection = try makeConnection(adapter: stubs)
        let response = connection.get("missing")
        await #expect(throws: FaradayError.self) { try await response.value }
        let seen = Locked<FaradayError.Code?>(nil)
        response.onComplete { env in seen.withLock { $0 = env.error?.code } }
        #expect(seen.withLock { $0 } == .noStubMatched)
    }

    @Test func aSecondIteratorFollowsTheOneThatPulls() async throws {
        let (connection, _) = try streamingConnection(
            StubResponse(body: ResponseBody(pieces: ["a", "b"].map { Data($0.utf8) }))
        )
        let response = connection.get("stream") { $0.options.streaming = .chunks }
        let head = try await response.head
        #expect(head.status == .ok)
        var bodies: [String] = []
        for try await env in response.completions { bodies.append(String(decoding: env.body, as: UTF8.self)) }
        #expect(bodies == ["a", "b", ""])
        // Iterating a finished response yields its final completion once.
        var late: [Env.Phase] = []
        for try await env in response.completions { late.append(env.phase) }
        #expect(late == [.final])
    }

    @Test func decodeDecodesTheBodyOrCarriesItInTheError() async throws {
        struct User: Decodable, Equatable {
            let id: Int
            let name: String
        }
        let stubs = TestAdapter()
        stubs.stub(.get, .path("/v1/users/1"), response: StubResponse(body: #"{"id":1,"name":"Ada"}"#))
        stubs.stub(.get, .path("/v1/users/2"), response: StubResponse(body: #"{"id":"two"}"#))
        let connection = try makeConnection(adapter: stubs)

        #expect(try await connection.get("users/1").decode(User.self) == User(id: 1, name: "Ada"))
        await #expect {
            try await connection.get("users/2").decode(User.self)
        } throws: { error in
            guard let error = error as? FaradayError else { return false }
            return error.code == .parsingFailed && error.response?.text == #"{"id":"two"}"#
                && error.underlying is DecodingError
        }
    }

    @Test func aDroppedHandleStillSendsItsRequest() async throws {
        let stubs = TestAdapter()
        stubs.stub(.delete, .path("/v1/items/1"), response: StubResponse(status: .noContent))
        let connection = try makeConnection(adapter: stubs)
        do {
            let response = connection.delete("items/1")
            _ = response
        }
        while stubs.calls.isEmpty { await Task.yield() }
        #expect(stubs.calls.first?.method == .delete)
    }
}
