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
                func build(app: any App) -> any App { Counting(app: app, inFlight: inFlight) }
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
    }
}
