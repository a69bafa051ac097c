import Faraday
import FaradayTestSupport
import Foundation
import Testing

extension AdapterConformance {
    @Suite(.timeLimit(.minutes(2))) struct CancellationTests {
        @Test(arguments: AdapterKind.allCases)
        func cancellingTheTaskStopsTheRequest(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, server in
                let task = Task { try await connection.get("fault/never").value }
                while server.requestsReceived == 0 { try await Task.sleep(for: .milliseconds(5)) }
                task.cancel()
                await #expect {
                    try await task.value
                } throws: { error in
                    isFaradayError(error, .cancelled)
                }
            }
        }

        /// The handle's cancel (not the awaiting task's) stops a buffered call with no body in flight:
        /// AsyncHTTPClientAdapter sends those through AsyncHTTPClient's async API, in a task of its
        /// own that Faraday's cancellation must reach.
        @Test(arguments: AdapterKind.allCases)
        func responseCancelStopsABufferedCallAndClosesItsConnection(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, server in
                let response = connection.get("fault/never")
                let waiter = Task { try await response.value }
                try await waitUntil { server.requestsReceived > 0 }
                response.cancel()
                await #expect {
                    try await waiter.value
                } throws: { error in
                    isFaradayError(error, .cancelled)
                }
                // The request was abandoned, not left waiting on the server: its connection closed.
                try await waitUntil { server.connectionsClosed > 0 }
                #expect(server.connectionsClosed == 1)
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func responseCancelStopsAStreamAndTheServerStopsSending(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, server in
                // A body that would take minutes to send: the transfer can only end by the cancel.
                let total = 1 << 40
                let response = connection.get("bytes/\(total)") { $0.options.streaming = .chunks }
                let phases = Recorder()
                response.onComplete { env in
                    phases.record(env.isFinal ? "final \(env.error?.code.description ?? "ok")" : "frame")
                }
                while server.bodyBytesSent == 0 { try await Task.sleep(for: .milliseconds(5)) }
                response.cancel()
                await #expect {
                    try await response.value
                } throws: { error in
                    isFaradayError(error, .cancelled)
                }
                #expect(phases.log.last == "final cancelled")
                #expect(phases.log.filter { $0.hasPrefix("final") }.count == 1)
                // The transfer stopped: the client closed the connection mid-body. Were it still
                // reading, this would wait out the suite's time limit and fail.
                while server.connectionsClosed == 0 { try await Task.sleep(for: .milliseconds(5)) }
                #expect(server.bodyBytesSent < total)
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func envCancelFromACallbackStopsTheStream(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, _ in
                let frames = Recorder()
                let response = connection.get("chunked?count=50&size=64&interval=10") { $0.options.streaming = .chunks }
                response.onComplete { env in
                    if !env.isFinal {
                        frames.record("frame")
                        env.cancel()
                    }
                }
                await #expect(throws: FaradayError.self) { try await response.value }
                #expect(frames.log.count == 1)
            }
        }
    }
}
