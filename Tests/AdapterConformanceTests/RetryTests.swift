import Faraday
import FaradayAsyncHTTPClient
import FaradayTestSupport
import Foundation
import Testing

extension AdapterConformance {
    @Suite(.timeLimit(.minutes(2))) struct RetryTests {
        struct Flaky: Decodable {
            let attempts: Int
            let bodies: [String]
        }

        /// The waits a retry handler asked for.
        final class Waits: Sendable {
            private let log = Locked<[Duration]>([])
            var all: [Duration] { log.withLock { $0 } }
            func record(_ wait: Duration) { log.withLock { $0.append(wait) } }
        }

        /// A retry handler that records its waits instead of sleeping.
        static func retry(
            _ waits: Waits = Waits(),
            _ configure: (inout Retry.Handler) -> Void = { _ in }
        ) -> Retry.Handler {
            var handler = Retry.Handler(backoff: .none, statuses: [503], sleep: { waits.record($0) })
            configure(&handler)
            return handler
        }

        @Test(arguments: AdapterKind.allCases)
        func aServerFailingTwiceGetsThreeIdenticalAttempts(_ kind: AdapterKind) async throws {
            let handler = Self.retry { (handler: inout Retry.Handler) in handler.methods.insert(.post) }
            try await withConnection(kind, handlers: [handler]) { connection, server in
                let reply = try await connection.post("flaky?key=a&failures=2", body: .text("same body")).decode(
                    Flaky.self
                )
                #expect(reply.attempts == 3)
                #expect(reply.bodies == ["same body", "same body", "same body"])
                #expect(server.requestsReceived == 3)
            }
        }

        /// The README's first stack, exactly: a server answering 503 twice then 200 sees three
        /// attempts, and the call succeeds (Retry decides before RaiseError's hook runs).
        @Test(arguments: AdapterKind.allCases)
        func theReadmeStackRetriesA503(_ kind: AdapterKind) async throws {
            let token = "readme-token"
            let handlers: [any Handler] = [
                Authorization.Handler(.bearer(token)),
                Retry.Handler(statuses: [503]),
                RaiseError.Handler(),
            ]
            try await withConnection(kind, handlers: handlers) { connection, server in
                let reply = try await connection.get("flaky?key=readme&failures=2").decode(Flaky.self)
                #expect(reply.attempts == 3)
                #expect(server.requestsReceived == 3)
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func retryAfterIsHonoured(_ kind: AdapterKind) async throws {
            let waits = Waits()
            try await withConnection(kind, handlers: [Self.retry(waits)]) { connection, _ in
                let reply = try await connection.get("flaky?key=b&failures=1&retryAfter=2").decode(Flaky.self)
                #expect(reply.attempts == 2)
                #expect(waits.all == [.seconds(2)])
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func postIsNotRetriedByDefault(_ kind: AdapterKind) async throws {
            let handler = Self.retry()
            try await withConnection(kind, handlers: [handler]) { connection, server in
                let status = try await connection.post("flaky?key=c&failures=1", body: .text("x")).value.status
                #expect(status?.code == 503)
                #expect(server.requestsReceived == 1)
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func aOneShotBodyIsRefused(_ kind: AdapterKind) async throws {
            let handler = Self.retry()
            try await withConnection(kind, handlers: [handler]) { connection, server in
                let body = RequestBody.stream(
                    AsyncStream {
                        $0.yield(Data("once".utf8))
                        $0.finish()
                    },
                    length: 4
                )
                await #expect {
                    try await connection.put("flaky?key=d&failures=1", body: body).value
                } throws: { error in
                    (error as? FaradayError)?.code == .bodyNotReplayable
                }
                #expect(server.requestsReceived == 1)
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func anExhaustedBudgetStopsRetrying(_ kind: AdapterKind) async throws {
            let handler = Self.retry { (handler: inout Retry.Handler) in
                handler.budget = RetryBudget(ratio: 0, reserve: 1)
                handler.maxAttempts = 5
            }
            try await withConnection(kind, handlers: [handler]) { connection, server in
                let status = try await connection.get("flaky?key=e&failures=10").value.status
                #expect(status?.code == 503)
                #expect(server.requestsReceived == 2, "one attempt and the single retry the budget allows")
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func connectionErrorsAreRetried(_ kind: AdapterKind) async throws {
            let attempts = Locked(0)
            let handler = Self.retry { (handler: inout Retry.Handler) in
                handler.maxAttempts = 2
                handler.onRetry = { _ in attempts.withLock { $0 += 1 } }
            }
            let adapter = try kind.makeAdapter()
            let refused = try Connection(url: "http://127.0.0.1:\(try await unusedLocalPort())") { builder in
                builder.use(handler)
                builder.adapter = adapter
            }
            await #expect {
                try await refused.get("x").value
            } throws: { error in
                (error as? FaradayError)?.code == .connectionFailed
            }
            #expect(attempts.withLock { $0 } == 1)
            try await (adapter as? AsyncHTTPClientAdapter)?.shutdown()
        }
    }
}
