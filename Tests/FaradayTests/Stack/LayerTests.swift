import Faraday
import Foundation
import Testing

/// One way to write a layer: the hooks run around a custom `call`, and each completion is made
/// the same way for buffered and streamed bodies.
@Suite(.timeLimit(.minutes(1))) struct LayerTests {
    /// Writes `call` (answers from memory the second time) and hooks: both run.
    struct CachingWithHooks: Middleware {
        let app: any App
        let recorder: Recorder
        let cache: Locked<Data?>

        func onRequest(_ env: inout Env) async throws { recorder.record("request") }

        func call(_ env: Env) async throws(FaradayError) -> Completions {
            if let body = cache.withLock({ $0 }) {
                var hit = env
                hit.response = ResponseData(status: .ok, body: body)
                return .buffered(hit)
            }
            let completions = try await app.call(env)
            recorder.record("call saw \(completions.head.status?.code ?? 0)")
            return completions
        }

        func onComplete(_ env: inout Env) throws {
            recorder.record("complete(\(env.phase))")
            if env.isFinal, !env.body.isEmpty { cache.withLock { $0 = env.body } }
        }

        struct Handler: Faraday.Handler {
            let recorder: Recorder
            let cache = Locked<Data?>(nil)
            func build(app: any App) -> any Middleware { CachingWithHooks(app: app, recorder: recorder, cache: cache) }
        }
    }

    @Test func theHooksRunAroundACustomCall() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/x") { _, _ in StubResponse(body: "fresh") }
        let recorder = Recorder()
        let connection = try makeConnection([CachingWithHooks.Handler(recorder: recorder)], adapter: stubs)

        #expect(try await connection.get("x").value.response?.text == "fresh")
        #expect(try await connection.get("x").value.response?.text == "fresh")
        #expect(stubs.calls.count == 1, "the second answer came from the cache")
        #expect(
            recorder.log == [
                "request", "call saw 200", "complete(final)",
                "request", "complete(final)",
            ]
        )
    }

    @Test func aBufferedAnswerIsFramedWhenTheRequestAsksForAStream() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/lines") { _, _ in StubResponse(body: "one\ntwo\n") }
        let recorder = Recorder()
        let connection = try makeConnection([CachingWithHooks.Handler(recorder: recorder)], adapter: stubs)
        _ = try await connection.get("lines").value  // cached, buffered

        var frames: [String] = []
        for try await env in connection.get("lines", configure: { $0.options.streaming = .lines }).completions {
            frames.append("\(env.phase):\(String(decoding: env.body, as: UTF8.self))")
        }
        #expect(frames == ["frame(0):one", "frame(1):two", "final:"])
    }

    @Test func hooksOfABufferedResponseRunWhenItIsPulled() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/x") { _, _ in StubResponse(body: "x") }
        let recorder = Recorder()
        let connection = try makeConnection([Recording.Handler(name: "M", recorder: recorder)], adapter: stubs)

        let response = connection.get("x")
        _ = try await response.head
        #expect(recorder.log == ["M.request"], "no hook ran before anyone pulled the completion")
        _ = try await response.value
        #expect(recorder.log == ["M.request", "M.complete(final)"])
    }

    @Test func aHandleDroppedUnconsumedIsSentAndEndsForEveryLayer() async throws {
        let stubs = TestAdapter()
        let sent = AsyncStream<Void>.makeStream()
        stubs.stub(.delete, .path("/v1/items/1")) { _, _ in
            sent.continuation.yield()
            return StubResponse(status: .noContent)
        }
        let recorder = Recorder()
        let ended = AsyncStream<Void>.makeStream()
        let connection = try makeConnection(
            [Recording.Handler(name: "M", recorder: recorder), EndSignal.Handler(ended: ended.continuation)],
            adapter: stubs
        )
        do {
            _ = connection.delete("items/1")
        }
        for await _ in sent.stream { break }
        for await _ in ended.stream { break }
        #expect(stubs.calls.first?.method == .delete)
        #expect(recorder.log.first == "M.request")
    }

    @Test func aHandleDroppedAfterItsHeadEndsForEveryLayer() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/x") { _, _ in StubResponse(body: "x") }
        let recorder = Recorder()
        let connection = try makeConnection(
            ["Outer", "Inner"].map { Recording.Handler(name: $0, recorder: recorder) },
            adapter: stubs
        )
        do {
            let response = connection.get("x")
            _ = try await response.head
        }
        #expect(
            recorder.log == [
                "Outer.request", "Inner.request", "Inner.error(cancelled)", "Outer.error(cancelled)",
            ]
        )
    }

    /// Signals when its call ends, whichever way.
    struct EndSignal: Middleware {
        let app: any App
        let ended: AsyncStream<Void>.Continuation
        func onComplete(_ env: inout Env) throws { if env.isFinal { ended.yield() } }
        func onError(_ error: FaradayError, env: Env) { ended.yield() }
        struct Handler: Faraday.Handler {
            let ended: AsyncStream<Void>.Continuation
            func build(app: any App) -> any Middleware { EndSignal(app: app, ended: ended) }
        }
    }
}
