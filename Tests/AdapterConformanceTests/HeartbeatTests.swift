import Faraday
import FaradayTestSupport
import Foundation
import Testing

extension AdapterConformance {
    /// The heartbeat tests of the original Swift Faraday, on the in-process server.
    @Suite(.timeLimit(.minutes(2))) struct HeartbeatTests {
        struct Beat: Decodable {
            let date: String
            let count: Int
        }

        private func stack() -> [any Handler] { [DecodeJSON.Handler()] }

        @Test(arguments: AdapterKind.allCases)
        func aConsumerStopsAfterCountThreeFromItsCallback(_ kind: AdapterKind) async throws {
            try await withConnection(kind, handlers: stack()) { connection, _ in
                let seen = Recorder()
                let response = connection.get("heartbeat?interval=50&limit=100") { $0.options.streaming = .ndjson }
                    .onComplete { env in
                        if env.isFinal {
                            seen.record("final \(env.error?.code.description ?? "ok")")
                        } else if let count = env.json?["count"]?.int {
                            seen.record("beat \(count)")
                            if count == 3 { env.cancel() }
                        }
                    }
                _ = try? await response.value
                #expect(seen.log == ["beat 1", "beat 2", "beat 3", "final cancelled"])
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func aConsumerReachesTheLimit(_ kind: AdapterKind) async throws {
            try await withConnection(kind, handlers: stack()) { connection, _ in
                var counts: [Int] = []
                var finals = 0
                for try await env in connection.get(
                    "heartbeat?interval=20&limit=5",
                    configure: { $0.options.streaming = .ndjson }
                ).completions {
                    if env.isFinal {
                        finals += 1
                    } else {
                        counts.append(try JSONDecoder().decode(Beat.self, from: env.body).count)
                    }
                }
                #expect(counts == [1, 2, 3, 4, 5])
                #expect(finals == 1)
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func cancellationGivesOneFinalCancelledCompletion(_ kind: AdapterKind) async throws {
            try await withConnection(kind, handlers: stack()) { connection, _ in
                let seen = Recorder()
                let response = connection.get("heartbeat?interval=50&limit=100") { $0.options.streaming = .ndjson }
                response.onComplete { env in
                    seen.record(env.isFinal ? "final \(env.error?.code.description ?? "ok")" : "beat")
                    if seen.log.count == 2 { response.cancel() }
                }
                await #expect {
                    try await response.value
                } throws: { error in
                    (error as? FaradayError)?.code == .cancelled
                }
                #expect(seen.log.filter { $0.hasPrefix("final") } == ["final cancelled"])
                #expect(seen.log.last == "final cancelled")
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func anEventSourceReconnectsWithTheLastEventID(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, server in
                var source = connection.eventSource("events?perConnection=2&total=5")
                source.reconnectionTime = .milliseconds(10)
                var events: [ServerSentEvent] = []
                for try await event in source { events.append(event) }
                #expect(events.map(\.data) == (1...5).map { "event \($0)" })
                #expect(events.map(\.lastEventID) == (1...5).map(String.init))
                #expect(events.allSatisfy { $0.type == "tick" })
                #expect(server.requestsReceived == 4, "three streams of 2, 2 and 1 events, then a 204")
            }
        }

        /// Issue 45: the docs said both that the loop ends and that it throws when reconnections
        /// run out. It throws `connectionFailed`, typed: `error.code` needs no cast.
        @Test(arguments: AdapterKind.allCases)
        func anEventSourceThatCannotReconnectThrowsConnectionFailed(_ kind: AdapterKind) async throws {
            let port = try await unusedLocalPort()
            let connection = try Connection(url: "http://127.0.0.1:\(port)") { $0.adapter = try kind.makeAdapter() }
            var source = connection.eventSource("events")
            source.reconnectionTime = .milliseconds(1)
            source.maxReconnects = 2
            var events = 0
            do {
                for try await _ in source { events += 1 }
                Issue.record("the loop ended without an error")
            } catch {
                #expect(error.code == .connectionFailed)
            }
            #expect(events == 0)
        }

        /// Each failed reconnection counts once: `maxReconnects` of them follow the first
        /// connection (issue 45: each counted twice, so half as many were made).
        @Test(arguments: AdapterKind.allCases)
        func anEventSourceMakesMaxReconnectsAttempts(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, server in
                var source = connection.eventSource("fault/reset-before-head")
                source.reconnectionTime = .milliseconds(1)
                source.maxReconnects = 3
                do {
                    for try await _ in source {}
                    Issue.record("the loop ended without an error")
                } catch {
                    // `any Error` here: in a closure, Swift 6.3 infers a `do` body's errors untyped.
                    #expect((error as? FaradayError)?.code == .connectionFailed)
                }
                #expect(server.requestsReceived == 4)
            }
        }
    }
}
