import Foundation
import Testing

@testable import Faraday

@Suite(.timeLimit(.minutes(1))) struct RetryTests {
    /// Records the waits instead of sleeping.
    final class Waits: Sendable {
        private let log = Locked<[Duration]>([])
        var all: [Duration] { log.withLock { $0 } }
        func record(_ wait: Duration) { log.withLock { $0.append(wait) } }
    }

    private func handler(_ waits: Waits, _ configure: (inout Retry.Handler) -> Void = { _ in }) -> Retry.Handler {
        var handler = Retry.Handler(backoff: .none, sleep: { waits.record($0) })
        configure(&handler)
        return handler
    }

    private func failing(
        _ count: Int,
        with error: FaradayError.Code = .connectionFailed,
        then response: StubResponse = StubResponse(body: "ok")
    ) -> TestAdapter {
        let stubs = TestAdapter()
        let calls = Locked(0)
        stubs.stub(.get, .path("/v1/x")) { _, _ in
            let call = calls.increment()
            if call <= count { throw FaradayError(error, "attempt \(call) failed") }
            return response
        }
        return stubs
    }

    @Test func connectionErrorsAreRetriedUntilTheyPass() async throws {
        let waits = Waits()
        let stubs = failing(2)
        let env = try await makeConnection([handler(waits)], adapter: stubs).get("x").value
        #expect(env.response?.text == "ok")
        #expect(stubs.calls.count == 3)
        #expect(waits.all.count == 2)
    }

    @Test func attemptsRunOutAndTheLastErrorComesBack() async throws {
        let exhausted = Locked<Int?>(nil)
        let stubs = failing(5)
        let connection = try makeConnection(
            [handler(Waits()) { $0.onExhausted = { attempt in exhausted.withLock { $0 = attempt.number } } }],
            adapter: stubs
        )
        await #expect {
            try await connection.get("x").value
        } throws: { error in
            (error as? FaradayError)?.message == "attempt 3 failed"
        }
        #expect(stubs.calls.count == 3)
        #expect(exhausted.withLock { $0 } == 3)
    }

    @Test func otherErrorsAreNotRetried() async throws {
        let stubs = failing(1, with: .tlsFailure)
        await #expect(throws: FaradayError.self) {
            try await makeConnection([handler(Waits())], adapter: stubs).get("x").value
        }
        #expect(stubs.calls.count == 1)
    }

    @Test func statusesAreRetriedOnlyWhenChosen() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/x") { _, _ in StubResponse(status: .serviceUnavailable) }
        #expect(
            try await makeConnection([handler(Waits())], adapter: stubs).get("x").value.status == .serviceUnavailable
        )
        #expect(stubs.calls.count == 1)
        _ = try await makeConnection([handler(Waits()) { $0.statuses = [503] }], adapter: stubs).get("x").value
        #expect(stubs.calls.count == 4)
    }

    @Test func postIsNotRetriedUnlessAskedFor() async throws {
        let stubs = TestAdapter()
        stubs.post("/v1/x") { _, _ in StubResponse(status: .serviceUnavailable) }
        _ = try await makeConnection([handler(Waits()) { $0.statuses = [503] }], adapter: stubs).post("x").value
        #expect(stubs.calls.count == 1)
        _ = try await makeConnection(
            [
                handler(Waits()) {
                    $0.statuses = [503]
                    $0.methods.insert(.post)
                }
            ],
            adapter: stubs
        ).post("x").value
        #expect(stubs.calls.count == 4)
        _ = try await makeConnection(
            [
                handler(Waits()) {
                    $0.statuses = [503]
                    $0.retryIf = { $0.number < 2 }
                }
            ],
            adapter: stubs
        ).post("x").value
        #expect(stubs.calls.count == 6)
    }

    @Test func aOneShotBodyIsRefusedWithAClearError() async throws {
        let stubs = TestAdapter()
        stubs.put("/v1/x") { _, _ in StubResponse(status: .serviceUnavailable) }
        let connection = try makeConnection([handler(Waits()) { $0.statuses = [503] }], adapter: stubs)
        let body = RequestBody.stream(
            AsyncStream {
                $0.yield(Data("x".utf8))
                $0.finish()
            }
        )
        await #expect {
            try await connection.put("x", body: body).value
        } throws: { error in
            guard let error = error as? FaradayError else { return false }
            return error.code == .bodyNotReplayable && error.message.contains("status 503") && error.status?.code == 503
        }
        #expect(stubs.calls.count == 1)
    }

    @Test func callbacksSeeEveryRetry() async throws {
        let seen = Locked<[Int]>([])
        let stubs = failing(2)
        _ = try await makeConnection(
            [handler(Waits()) { $0.onRetry = { attempt in seen.withLock { $0.append(attempt.number) } } }],
            adapter: stubs
        ).get("x").value
        #expect(seen.withLock { $0 } == [1, 2])
    }

    @Test func theBudgetStopsAStorm() async throws {
        let budget = RetryBudget(ratio: 0, reserve: 2)
        let stubs = failing(100)
        let connection = try makeConnection(
            [
                handler(Waits()) {
                    $0.budget = budget
                    $0.maxAttempts = 10
                }
            ],
            adapter: stubs
        )
        _ = try? await connection.get("x").value
        _ = try? await connection.get("x").value
        #expect(stubs.calls.count == 4, "one call with two retries, then a call with none")
        #expect(budget.balance < 1)
    }

    @Test func aBudgetIsEarnedBack() {
        let budget = RetryBudget(ratio: 0.5, reserve: 1)
        #expect(budget.withdraw())
        #expect(!budget.withdraw())
        budget.deposit()
        budget.deposit()
        #expect(budget.withdraw())
    }

    @Test func serverWaitsAreReadAndCapped() throws {
        let now = Date(timeIntervalSince1970: 1_445_412_480)
        #expect(Retry.serverDelay([.retryAfter: "7"], now: now) == .seconds(7))
        #expect(Retry.serverDelay([.retryAfter: "Wed, 21 Oct 2015 07:28:30 GMT"], now: now) == .seconds(30))
        #expect(Retry.serverDelay([try #require(HTTPField.Name("RateLimit-Reset")): "12"], now: now) == .seconds(12))
        #expect(Retry.serverDelay([.retryAfter: "soon"], now: now) == nil)
        let retry = Retry(app: TestAdapter(), handler: Retry.Handler(maxRetryAfter: .seconds(10)))
        #expect(
            retry.delay(
                before: 1,
                after: ResponseData(status: .tooManyRequests, headers: [.retryAfter: "3600"]),
                now: now
            ) == .seconds(10)
        )
    }

    @Test func backoffGrowsToItsCapWithJitterBelowIt() {
        let backoff = Backoff(base: .seconds(1), factor: 2, cap: .seconds(5), jitter: 0.5)
        #expect(
            (1...5).map { backoff.delay(beforeRetry: $0, random: 0) } == [
                .seconds(1), .seconds(2), .seconds(4), .seconds(5), .seconds(5),
            ]
        )
        #expect(backoff.delay(beforeRetry: 3, random: 1) == .seconds(2))
        for _ in 0..<50 { #expect((.seconds(2)...(.seconds(4))).contains(backoff.delay(beforeRetry: 3))) }
    }

    @Test func cancellingDuringAWaitEndsItAtOnce() async throws {
        let stubs = failing(1)
        let connection = try makeConnection(
            [Retry.Handler(backoff: Backoff(base: .seconds(3600), jitter: 0))],
            adapter: stubs
        )
        let response = connection.get("x")
        let task = Task { try await response.value }
        while stubs.calls.isEmpty { await Task.yield() }
        response.cancel()
        await #expect {
            try await task.value
        } throws: { error in
            (error as? FaradayError)?.code == .cancelled
        }
    }
}
