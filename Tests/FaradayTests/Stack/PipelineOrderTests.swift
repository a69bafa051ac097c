import Faraday
import Foundation
import Testing

@Suite(.timeLimit(.minutes(1))) struct PipelineOrderTests {
    @Test func requestsGoDownAndCompletionsComeBackUp() async throws {
        let recorder = Recorder()
        let stubs = TestAdapter()
        stubs.get("/v1/items") { env, _ in
            recorder.record("adapter \(env.request.headers[values: .init("X-Trail")!])")
            return StubResponse(body: "ok")
        }
        let connection = try makeConnection(
            ["A", "B", "C"].map { Recording.Handler(name: $0, recorder: recorder) },
            adapter: stubs
        )

        let env = try await connection.get("items").onComplete { _ in recorder.record("user.1") }
            .onComplete { _ in recorder.record("user.2") }.value

        #expect(env.response?.text == "ok")
        let log = recorder.log
        #expect(
            Array(log.prefix(4)) == [
                "A.request", "B.request", "C.request", #"adapter ["A", "B", "C"]"#,
            ]
        )
        #expect(
            Array(log.dropFirst(4).prefix(3)) == [
                "C.complete(final)", "B.complete(final)", "A.complete(final)",
            ]
        )
    }

    @Test func userCallbacksRunAfterTheHooksInTheOrderAdded() async throws {
        let recorder = Recorder()
        let stubs = TestAdapter()
        stubs.get("/v1/x", respond: { _, _ in StubResponse(body: "x") })
        let connection = try makeConnection([Recording.Handler(name: "M", recorder: recorder)], adapter: stubs)

        let response = connection.get("x")
        response.onComplete { _ in recorder.record("first") }
        response.onComplete { _ in recorder.record("second") }
        response.onSuccess { _ in recorder.record("success") }
        _ = try await response.value
        #expect(recorder.log == ["M.request", "M.complete(final)", "first", "second", "success"])
    }

    @Test func everyChunkOfAStreamIsACompletionThroughTheHooks() async throws {
        let recorder = Recorder()
        let stubs = TestAdapter()
        stubs.get("/v1/stream") { _, _ in
            StubResponse(body: ResponseBody(pieces: ["a", "b", "c"].map { Data($0.utf8) }))
        }
        let connection = try makeConnection(
            ["Outer", "Inner"].map { Recording.Handler(name: $0, recorder: recorder) },
            adapter: stubs
        )

        let response = connection.get("stream") { $0.options.streaming = .chunks }
        var bodies: [String] = []
        for try await env in response.completions {
            recorder.record("user(\(env.phase))")
            bodies.append(String(decoding: env.body, as: UTF8.self))
        }
        #expect(bodies == ["a", "b", "c", ""])
        #expect(
            recorder.log == [
                "Outer.request", "Inner.request",
                "Inner.complete(frame(0))", "Outer.complete(frame(0))", "user(frame(0))",
                "Inner.complete(frame(1))", "Outer.complete(frame(1))", "user(frame(1))",
                "Inner.complete(frame(2))", "Outer.complete(frame(2))", "user(frame(2))",
                "Inner.complete(final)", "Outer.complete(final)", "user(final)",
            ]
        )
    }

    @Test func streamedCallbacksReceiveEachFrameThenTheFinalCompletion() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/stream") { _, _ in StubResponse(body: ResponseBody(pieces: ["1", "2"].map { Data($0.utf8) })) }
        let connection = try makeConnection(adapter: stubs)
        let recorder = Recorder()

        let response = connection.get("stream") { $0.options.streaming = .chunks }
        let final = try await response.onComplete { env in
            recorder.record("\(env.phase):\(String(decoding: env.body, as: UTF8.self))")
        }.value
        #expect(final.isFinal)
        #expect(recorder.log == ["frame(0):1", "frame(1):2", "final:"])
    }

    @Test func errorsReachTheErrorHooksInnermostFirst() async throws {
        let recorder = Recorder()
        let stubs = TestAdapter()
        stubs.get("/v1/down") { _, _ in throw FaradayError(.connectionFailed, "refused") }
        let connection = try makeConnection(
            ["A", "B"].map { Recording.Handler(name: $0, recorder: recorder) },
            adapter: stubs
        )

        await #expect {
            try await connection.get("down").value
        } throws: { error in
            (error as? FaradayError)?.code == .connectionFailed
        }
        #expect(recorder.log == ["A.request", "B.request", "B.error(connectionFailed)", "A.error(connectionFailed)"])
    }

    @Test func anErrorMidStreamRunsTheErrorHooksAndEndsTheIteration() async throws {
        let recorder = Recorder()
        let stubs = TestAdapter()
        stubs.get("/v1/stream") { _, _ in
            StubResponse(
                body: ResponseBody(pieces: [Data("a".utf8)]),
                ending: .fail(FaradayError(.connectionFailed, "reset"))
            )
        }
        let connection = try makeConnection([Recording.Handler(name: "M", recorder: recorder)], adapter: stubs)

        var received: [String] = []
        do {
            for try await env in connection.get("stream", configure: { $0.options.streaming = .chunks }).completions {
                received.append(String(decoding: env.body, as: UTF8.self))
            }
            Issue.record("the stream should have failed")
        } catch {
            #expect(error.code == .connectionFailed)
            #expect(error.url?.absoluteString == "https://api.example.com/v1/stream")
        }
        #expect(received == ["a"])
        #expect(recorder.log == ["M.request", "M.complete(frame(0))", "M.error(connectionFailed)"])
    }

    @Test func aHookThatThrowsFailsTheCallThroughTheOuterLayers() async throws {
        struct Rejects: Middleware {
            let app: any App
            func onComplete(_ env: inout Env) throws {
                throw FaradayError(.parsingFailed, "bad body", response: env.response)
            }
            struct Handler: Faraday.Handler {
                func build(app: any App) -> any Middleware { Rejects(app: app) }
            }
        }
        let recorder = Recorder()
        let stubs = TestAdapter()
        stubs.get("/v1/x") { _, _ in StubResponse(body: "nope") }
        let connection = try makeConnection(
            [Recording.Handler(name: "Outer", recorder: recorder), Rejects.Handler()],
            adapter: stubs
        )

        let failures = Recorder()
        let response = connection.get("x").onFailure { failures.record("\($0.code)") }
        await #expect(throws: FaradayError.self) { try await response.value }
        #expect(recorder.log == ["Outer.request", "Outer.error(parsingFailed)"])
        #expect(failures.log == ["parsingFailed"])
    }
}
