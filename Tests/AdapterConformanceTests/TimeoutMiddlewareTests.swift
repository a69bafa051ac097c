import Faraday
import FaradayTestSupport
import Foundation
import Testing

extension AdapterConformance {
    @Suite(.timeLimit(.minutes(2))) struct TimeoutMiddlewareTests {
        @Test(arguments: AdapterKind.allCases)
        func aCallPastItsDeadlineFailsWithCallTimeout(_ kind: AdapterKind) async throws {
            try await withConnection(kind, handlers: [Timeout.Handler(.milliseconds(300))]) { connection, _ in
                await #expect {
                    try await connection.get("fault/never").value
                } throws: { error in
                    (error as? FaradayError)?.code == .callTimeout
                }
                let status = try await connection.get("echo").value.status
                #expect(status?.code == 200)
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func theDeadlineCoversEveryFrameOfAStream(_ kind: AdapterKind) async throws {
            try await withConnection(kind, handlers: [Timeout.Handler(.milliseconds(500))]) { connection, _ in
                var frames = 0
                await #expect {
                    for try await env in connection.get("stall", configure: { $0.options.streaming = .chunks })
                        .completions where !env.isFinal
                    {
                        frames += 1
                    }
                } throws: { error in
                    (error as? FaradayError)?.code == .callTimeout
                }
                #expect(frames == 1)
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func aboveRetryItBoundsEveryAttemptAndWait(_ kind: AdapterKind) async throws {
            let retry = Retry.Handler(
                maxAttempts: 5,
                backoff: Backoff(base: .seconds(3600), jitter: 0),
                statuses: [503]
            )
            try await withConnection(kind, handlers: [Timeout.Handler(.milliseconds(300)), retry]) {
                connection,
                server in
                await #expect {
                    try await connection.get("flaky?key=t&failures=10").value
                } throws: { error in
                    (error as? FaradayError)?.code == .callTimeout
                }
                #expect(server.requestsReceived == 1, "the deadline ended the hour-long wait")
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func belowRetryItBoundsEachAttempt(_ kind: AdapterKind) async throws {
            let retry = Retry.Handler(maxAttempts: 2, backoff: .none, errors: [.callTimeout])
            try await withConnection(kind, handlers: [retry, Timeout.Handler(.milliseconds(200))]) {
                connection,
                server in
                await #expect {
                    try await connection.get("fault/never").value
                } throws: { error in
                    (error as? FaradayError)?.code == .callTimeout
                }
                #expect(server.requestsReceived == 2)
            }
        }
    }
}
