import Faraday
import FaradayTestSupport
import Foundation
import Testing

extension AdapterConformance {
    @Suite(.timeLimit(.minutes(2))) struct InstrumentationTests {
        /// Writes every event as a line.
        struct Lines: EventMonitor {
            let recorder = Recorder()
            func callStarted(_ call: CallInfo) { recorder.record("started \(call.request.url.path)") }
            func attemptStarted(_ call: CallInfo, attempt: Int) { recorder.record("attempt \(attempt)") }
            func retryScheduled(_ call: CallInfo, attempt: Int, delay: Duration) {
                recorder.record("retry after \(attempt)")
            }
            func redirected(_ call: CallInfo, to redirect: FollowRedirects.Redirect) {
                recorder.record("redirect \(redirect.status) \(redirect.to.path)")
            }
            func responseHeadReceived(_ call: CallInfo, response: ResponseData) {
                recorder.record("head \(response.status.code)")
            }
            func chunkReceived(_ call: CallInfo, index: Int, bytes: Int) { recorder.record("chunk \(index) \(bytes)") }
            func callFinished(_ call: CallInfo, response: ResponseData, bytes: Int) {
                recorder.record("finished \(response.status.code) \(bytes)")
            }
            func callFailed(_ call: CallInfo, error: FaradayError) { recorder.record("failed \(error.code)") }
        }

        @Test(arguments: AdapterKind.allCases)
        func eventsArriveInOrder(_ kind: AdapterKind) async throws {
            let lines = Lines()
            let handlers: [any Handler] = [
                Instrumentation.Handler(monitors: [lines]), FollowRedirects.Handler(),
                Retry.Handler(backoff: .none, statuses: [503]),
            ]
            try await withConnection(kind, handlers: handlers) { connection, _ in
                let to = "/flaky?key=events&failures=1"
                let body = try await connection.get("redirect/302", params: ["to": .string(to)]).value.body
                #expect(
                    lines.recorder.log == [
                        "started /redirect/302", "attempt 1", "redirect 302 /flaky", "attempt 1", "retry after 1",
                        "attempt 2",
                        "head 200", "finished 200 \(body.count)",
                    ]
                )
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func streamsReportEachChunkAndFailuresAreReported(_ kind: AdapterKind) async throws {
            let lines = Lines()
            try await withConnection(kind, handlers: [Instrumentation.Handler(monitors: [lines])]) { connection, _ in
                var sizes: [Int] = []
                for try await env in connection.get(
                    "chunked?count=3&size=16&interval=50",
                    configure: { $0.options.streaming = .chunks }
                ).completions
                where !env.isFinal {
                    sizes.append(env.body.count)
                }
                let expected =
                    ["started /chunked", "head 200"] + sizes.enumerated().map { "chunk \($0.offset) \($0.element)" } + [
                        "finished 200 48"
                    ]
                #expect(lines.recorder.log == expected)

                _ = try? await connection.get("fault/reset-before-head").value
                #expect(lines.recorder.log.last?.hasPrefix("failed ") == true)
            }
        }
    }
}
