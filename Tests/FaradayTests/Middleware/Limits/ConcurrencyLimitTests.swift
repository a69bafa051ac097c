import Faraday
import Foundation
import Testing

@Suite(.timeLimit(.minutes(1))) struct ConcurrencyLimitTests {
    @Test func waitersGoInOrderAndACancelledWaiterLeavesAtOnce() async throws {
        let limit = ConcurrencyLimit.Handler(maximum: 1)
        let stubs = TestAdapter()
        stubs.get("/v1/hold") { _, _ in .noResponse }
        stubs.get("/v1/quick") { env, _ in StubResponse(body: env.request.url.query ?? "") }
        let order = Recorder()
        let connection = try makeConnection([limit], adapter: stubs)
        let holder = connection.get("hold")
        let holding = Task { try await holder.value }
        while stubs.calls.isEmpty { await Task.yield() }

        let second = connection.get("quick?n=2")
        let secondTask = Task { order.record(try await second.value.response?.text ?? "") }
        while limit.waiting < 1 { await Task.yield() }
        let third = connection.get("quick?n=3")
        let thirdTask = Task { order.record(try await third.value.response?.text ?? "") }
        while limit.waiting < 2 { await Task.yield() }
        let fourth = connection.get("quick?n=4")
        let fourthTask = Task { try await fourth.value }
        while limit.waiting < 3 { await Task.yield() }

        fourth.cancel()
        await #expect {
            try await fourthTask.value
        } throws: { error in
            (error as? FaradayError)?.code == .cancelled
        }
        #expect(limit.waiting == 2)

        holder.cancel()
        _ = try? await holding.value
        try await secondTask.value
        try await thirdTask.value
        #expect(order.log == ["n=2", "n=3"])
        #expect(stubs.calls.count == 3, "the cancelled waiter never reached the adapter")
    }

    @Test func aStreamHoldsItsPlaceUntilItsLastFrame() async throws {
        let limit = ConcurrencyLimit.Handler(maximum: 1)
        let stubs = TestAdapter()
        stubs.get("/v1/s") { _, _ in StubResponse(body: ResponseBody(pieces: [Data("a".utf8), Data("b".utf8)])) }
        let connection = try makeConnection([limit], adapter: stubs)
        var iterator = connection.get("s") { $0.options.streaming = .chunks }.completions.makeAsyncIterator()
        _ = try await iterator.next()
        let next = Task { try await connection.get("s").value }
        while limit.waiting < 1 { await Task.yield() }
        while try await iterator.next() != nil {}
        _ = try await next.value
        #expect(limit.waiting == 0)
    }

    @Test func failuresGiveThePlaceBack() async throws {
        let limit = ConcurrencyLimit.Handler(maximum: 1)
        let stubs = TestAdapter()
        let connection = try makeConnection([limit], adapter: stubs)
        for _ in 0..<3 { _ = try? await connection.get("nothing").value }
        stubs.get("/v1/ok") { _, _ in StubResponse() }
        #expect(try await connection.get("ok").value.status == .ok)
    }
}
