import Faraday
import FaradayTestSupport
import Foundation
import Testing

extension AdapterConformance {
    @Suite(.timeLimit(.minutes(3))) struct ConcurrencyLimitTests {
        /// Counts the calls below it in flight, and the most seen at once.
        final class InFlight: Sendable {
            private let state = Locked((now: 0, most: 0))
            var most: Int { state.withLock { $0.most } }
            func enter() {
                state.withLock {
                    $0.now += 1
                    $0.most = max($0.most, $0.now)
                }
            }
            func leave() { state.withLock { $0.now -= 1 } }
        }

        struct Counting: Middleware {
            let app: any App
            let inFlight: InFlight
            func onRequest(_ env: inout Env) async throws { inFlight.enter() }
            func onComplete(_ env: inout Env) throws { if env.isFinal { inFlight.leave() } }
            func onError(_ error: FaradayError, env: Env) { inFlight.leave() }
            struct Handler: Faraday.Handler {
                let inFlight: InFlight
                func build(app: any App) -> any Middleware { Counting(app: app, inFlight: inFlight) }
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func theLimitHoldsUnder200ConcurrentCalls(_ kind: AdapterKind) async throws {
            let inFlight = InFlight()
            let handlers: [any Handler] = [ConcurrencyLimit.Handler(maximum: 5), Counting.Handler(inFlight: inFlight)]
            try await withConnection(kind, handlers: handlers) { connection, server in
                let statuses = try await withThrowingTaskGroup(of: Int?.self) { group in
                    for _ in 0..<200 { group.addTask { try await connection.get("delay/5").value.status?.code } }
                    return try await group.reduce(into: [Int?]()) { $0.append($1) }
                }
                #expect(statuses.count == 200 && statuses.allSatisfy { $0 == 200 })
                #expect(inFlight.most <= 5)
                #expect(inFlight.most > 1, "calls did run side by side")
                #expect(server.requestsReceived == 200)
            }
        }

        /// Issue 45: a library's limit above the application's. The two layers once wrote one env
        /// key, so the outer permit was never returned and the third call waited forever.
        @Test(arguments: AdapterKind.allCases)
        func twoLimitsInOneStackEachReturnTheirPlaces(_ kind: AdapterKind) async throws {
            let outer = ConcurrencyLimit.Handler(maximum: 2)
            let inner = ConcurrencyLimit.Handler(maximum: 3)
            try await withConnection(kind, handlers: [outer, inner]) { connection, server in
                for _ in 0..<6 {
                    let env = try await connection.get("delay/1").value
                    #expect(env.status == .ok)
                }
                #expect(server.requestsReceived == 6)
                #expect(outer.waiting == 0 && inner.waiting == 0)
            }
        }

        /// Two of every middleware that follows a call from its start to its end, in one stack,
        /// answer call after call (issue 45: per-call state belongs to the layer).
        @Test(arguments: AdapterKind.allCases)
        func twoOfEveryCallFollowingMiddlewareWork(_ kind: AdapterKind) async throws {
            let monitor = CountingMonitor()
            func layers(_ maximum: Int) -> [any Handler] {
                [
                    ConcurrencyLimit.Handler(maximum: maximum),
                    HTTPLogger.Handler(),
                    Instrumentation.Handler(monitors: [monitor]),
                    Timeout.Handler(.seconds(60)),
                    HTTPCache.Handler(),
                    Retry.Handler(statuses: [503], sleep: { _ in }),
                ]
            }
            try await withConnection(kind, handlers: layers(1) + layers(2)) { connection, _ in
                for index in 0..<4 {
                    let env = try await connection.get("flaky?key=two-of-each-\(index)&failures=1").value
                    #expect(env.status == .ok)
                }
                let streamed = try await connection.get("chunked?count=3&size=8") {
                    $0.options.streaming = .chunks
                }.value
                #expect(streamed.status == .ok)
            }
            #expect(monitor.finished == 10, "each Instrumentation layer saw each of the five calls end")
        }

        final class CountingMonitor: EventMonitor {
            private let count = Locked(0)
            var finished: Int { count.withLock { $0 } }
            func callFinished(_ call: CallInfo, response: ResponseData, bytes: Int) { count.withLock { $0 += 1 } }
        }
    }
}
