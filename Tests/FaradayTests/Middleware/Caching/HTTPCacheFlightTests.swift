import Foundation
import HTTPTypes
import Testing

@testable import Faraday

/// One request for many waiters (issue 47): concurrent misses for one URL send one request, and
/// the others are answered from what it stored, or each asks for itself when it stored nothing.
@Suite(.timeLimit(.minutes(1))) struct HTTPCacheFlightTests {
    /// Whether `count` calls came to wait for a flight of `cache` (polled for at most 20 s: a
    /// bound on waiting for something that must happen, not a measure of time). The callers open
    /// their gate whatever it answers, so that a test without flights fails instead of hanging.
    private func waitForWaiters(_ count: Int, _ cache: HTTPCache.Handler) async -> Bool {
        for _ in 0..<20_000 where cache.shared.flights.waiting != count {
            try? await Task.sleep(for: .milliseconds(1))
        }
        return cache.shared.flights.waiting == count
    }

    /// An origin whose first answer waits at `gate`.
    private func origin(_ gate: AsyncGate, cacheControl: String = "max-age=60") -> CachedOrigin {
        let origin = CachedOrigin()
        let first = Locked(true)
        origin.adapter.stub(.get, .path("/v1/gated")) { _, _ in
            if first.withLock({ value in
                defer { value = false }
                return value
            }) {
                await gate.wait()
            }
            return StubResponse(headers: origin.headers([("Cache-Control", cacheControl)]), body: "gated")
        }
        return origin
    }

    @Test func aHundredConcurrentMissesSendOneRequest() async throws {
        let gate = AsyncGate()
        let origin = origin(gate)
        let (connection, cache) = try origin.connection()
        let answers = try await withThrowingTaskGroup(of: Env.self) { group in
            for _ in 0..<100 { group.addTask { try await connection.get("gated").value } }
            let waited = await waitForWaiters(99, cache)
            gate.open()
            #expect(waited)
            return try await group.reduce(into: [Env]()) { $0.append($1) }
        }
        #expect(origin.requests.count == 1)
        #expect(answers.allSatisfy { $0.response?.text == "gated" })
        #expect(answers.filter { $0.cacheStatus == .miss }.count == 1)
        #expect(answers.filter { $0.cacheStatus == .hit }.count == 99)
    }

    /// What the leader could not store answers nobody else: each waiter asks for itself.
    @Test func anAnswerThatIsNotStoredSendsEachWaiterToTheServer() async throws {
        let gate = AsyncGate()
        let origin = origin(gate, cacheControl: "no-store")
        let (connection, cache) = try origin.connection()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<10 { group.addTask { _ = try await connection.get("gated").value } }
            let waited = await waitForWaiters(9, cache)
            gate.open()
            #expect(waited)
            try await group.waitForAll()
        }
        #expect(origin.requests.count == 10)
    }

    /// A waiter that leaves ends its own call only: the leader and the other waiters go on.
    @Test func aCancelledWaiterCancelsNobodyElse() async throws {
        let gate = AsyncGate()
        let origin = origin(gate)
        let (connection, cache) = try origin.connection()
        let leader = Task { try await connection.get("gated").value }
        for _ in 0..<1000 where origin.requests.isEmpty { try await Task.sleep(for: .milliseconds(1)) }
        let leaving = Task { try await connection.get("gated").value }
        let staying = Task { try await connection.get("gated").value }
        let bothWaited = await waitForWaiters(2, cache)
        leaving.cancel()
        let oneWaits = await waitForWaiters(1, cache)
        gate.open()
        #expect(bothWaited && oneWaits)
        #expect(try await leader.value.cacheStatus == .miss)
        #expect(try await staying.value.cacheStatus == .hit)
        await #expect {
            try await leaving.value
        } throws: { error in
            (error as? FaradayError)?.code == .cancelled
        }
        #expect(origin.requests.count == 1)
    }

    /// A leader that takes longer than the lock's timeout no longer holds the others.
    @Test func aWaiterStopsWaitingAfterTheLockTimeout() async throws {
        let gate = AsyncGate()
        let origin = origin(gate)
        let (connection, _) = try origin.connection { $0.lockTimeout = .milliseconds(50) }
        let leader = Task { try await connection.get("gated").value }
        for _ in 0..<1000 where origin.requests.isEmpty { try await Task.sleep(for: .milliseconds(1)) }
        let waiter = try await connection.get("gated").value  // the gate is still closed
        #expect(waiter.cacheStatus == .miss && origin.requests.count == 2)
        gate.open()
        _ = try await leader.value
    }

    /// A leader whose request fails lands its flight: the waiters ask for themselves.
    @Test func aFailedLeaderSendsTheWaitersToTheServer() async throws {
        let gate = AsyncGate()
        let origin = CachedOrigin()
        let first = Locked(true)
        origin.adapter.stub(.get, .path("/v1/x")) { _, _ in
            if first.withLock({ value in
                defer { value = false }
                return value
            }) {
                await gate.wait()
                throw FaradayError(.connectionFailed, "down")
            }
            return StubResponse(headers: origin.headers([("Cache-Control", "max-age=60")]), body: "b")
        }
        let (connection, cache) = try origin.connection()
        let leader = Task { try await connection.get("x").value }
        for _ in 0..<1000 where origin.requests.isEmpty { try await Task.sleep(for: .milliseconds(1)) }
        let waiter = Task { try await connection.get("x").value }
        let waited = await waitForWaiters(1, cache)
        gate.open()
        #expect(waited)
        await #expect(throws: FaradayError.self) { try await leader.value }
        #expect(try await waiter.value.response?.text == "b")
    }

    /// With a lock timeout of zero, every miss is sent.
    @Test func aLockTimeoutOfZeroSendsEveryMiss() async throws {
        let gate = AsyncGate()
        let origin = origin(gate)
        let (connection, _) = try origin.connection { $0.lockTimeout = .zero }
        let leader = Task { try await connection.get("gated").value }
        for _ in 0..<1000 where origin.requests.isEmpty { try await Task.sleep(for: .milliseconds(1)) }
        #expect(try await connection.get("gated").value.cacheStatus == .miss)
        gate.open()
        _ = try await leader.value
        #expect(origin.requests.count == 2)
    }

    /// An answer that will not be stored fresh lands the flight at its head: the others do not
    /// wait for its body (a stream, a large download).
    @Test func aWaiterDoesNotWaitForTheBodyOfAnAnswerThatIsNotStored() async throws {
        let gate = AsyncGate()
        let origin = CachedOrigin()
        origin.adapter.stub(.get, .path("/v1/x")) { _, _ in
            let body = ByteStream(
                AsyncStream { continuation in
                    Task {
                        await gate.wait()
                        continuation.yield(Data("late".utf8))
                        continuation.finish()
                    }
                }
            )
            return StubResponse(
                headers: origin.headers([("Cache-Control", "no-store")]),
                body: ResponseBody(stream: body)
            )
        }
        // A lock longer than the test's bound: a waiter that waited would fail it.
        let (connection, cache) = try origin.connection { $0.lockTimeout = .seconds(600) }
        let leader = connection.get("x", streaming: .chunks)
        _ = try await leader.head  // the leader's head is here; its body waits at the gate
        let leaderDone = Task { try await leader.value }  // pulls the body once the gate opens
        let waiter = Task { try await connection.get("x").value }
        // The waiter's own request reaches the server while the leader's body still waits.
        for _ in 0..<20_000 where origin.requests.count < 2 { try? await Task.sleep(for: .milliseconds(1)) }
        let askedItself = origin.requests.count == 2 && cache.shared.flights.waiting == 0
        gate.open()
        #expect(askedItself)
        #expect(try await waiter.value.response?.text == "late")
        _ = try await leaderDone.value
    }

    /// A waiter whose call is cancelled through its handle (or a `Timeout` above) stops waiting.
    @Test func aWaiterCancelledThroughItsHandleStopsWaiting() async throws {
        let gate = AsyncGate()
        let origin = origin(gate)
        let (connection, cache) = try origin.connection()
        let leader = Task { try await connection.get("gated").value }
        for _ in 0..<1000 where origin.requests.isEmpty { try await Task.sleep(for: .milliseconds(1)) }
        let handle = connection.get("gated")
        let waiter = Task { try await handle.value }
        let waited = await waitForWaiters(1, cache)
        handle.cancel()
        let left = await waitForWaiters(0, cache)
        gate.open()
        #expect(waited && left)
        await #expect(throws: FaradayError.self) { try await waiter.value }
        #expect(try await leader.value.cacheStatus == .miss)
    }

    /// A request that may not be answered from the store (`no-cache`, `max-age=0`, `no-store`)
    /// waits for nobody.
    @Test(arguments: ["no-cache", "max-age=0", "no-store"])
    func aRequestThatMayNotUseTheStoreDoesNotWait(_ cacheControl: String) async throws {
        let gate = AsyncGate()
        let origin = origin(gate)
        let (connection, _) = try origin.connection()
        let leader = Task { try await connection.get("gated").value }
        for _ in 0..<1000 where origin.requests.isEmpty { try await Task.sleep(for: .milliseconds(1)) }
        let answer = try await connection.get("gated", headers: [.cacheControl: cacheControl]).value
        gate.open()
        #expect(answer.response?.text == "gated" && origin.requests.count == 2)
        _ = try await leader.value
    }
}
