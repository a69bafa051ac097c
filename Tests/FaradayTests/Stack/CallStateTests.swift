import Faraday
import Foundation
import HTTPTypes
import Testing

/// The layer's contract of issue 46: per-call state from `onRequest` to the hooks of the same
/// layer and call, both spellings of each hook, and one point where a hook's error becomes a
/// `FaradayError`.
@Suite(.timeLimit(.minutes(1))) struct CallStateTests {
    /// Numbers each call on the way down and checks, on the way up, that it got its own number
    /// back: the state of one layer for one call.
    struct Numbered: Middleware {
        let app: any App
        let name: String
        let counter: Locked<Int>
        let log: Recorder

        func onRequest(_ env: inout Env) async throws -> Int {
            let number = counter.withLock { count -> Int in
                count += 1
                return count
            }
            env.request.headers.append(HTTPField(name: .named("X-Number"), value: "\(name)\(number)"))
            return number
        }

        func onComplete(_ env: inout Env, state number: Int) throws {
            if env.isFinal { log.record("\(name)\(number) complete") }
        }

        func onError(_ error: FaradayError, env: Env, state number: Int?) {
            log.record("\(name)\(number.map(String.init) ?? "-") failed \(error.code)")
        }

        struct Handler: Faraday.Handler {
            let name: String
            let counter = Locked(0)
            let log: Recorder
            func build(app: any App) -> any Middleware { Numbered(app: app, name: name, counter: counter, log: log) }
        }
    }

    @Test func twoLayersOfOneKindEachGetTheirOwnStateForEachCall() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/x") { env, _ in
            StubResponse(body: env.request.headers[values: .named("X-Number")].joined(separator: ","))
        }
        let log = Recorder()
        let outer = Numbered.Handler(name: "a", log: log)
        outer.counter.withLock { $0 = 100 }  // the two layers number differently
        let connection = try makeConnection([outer, Numbered.Handler(name: "b", log: log)], adapter: stubs)
        let bodies = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 { group.addTask { try await connection.get("x").value.response?.text ?? "" } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        // Each call saw one number of each layer on the way down, and each layer got back, on the
        // way up, the number it gave that call: the log holds each pair exactly once.
        let pairs = bodies.map { $0.split(separator: ",").map(String.init) }
        #expect(Set(pairs.map { $0[0] }) == Set((101...120).map { "a\($0)" }))
        #expect(Set(pairs.map { $0[1] }) == Set((1...20).map { "b\($0)" }))
        let completed = log.log.filter { $0.hasSuffix("complete") }
        #expect(Set(completed) == Set(pairs.flatMap { $0 }.map { "\($0) complete" }))
        #expect(completed.count == 40)
    }

    @Test func onErrorGetsTheStateOfACallThatFailedBelowAndNoneWhenOnRequestThrew() async throws {
        struct Refuse: Middleware {
            let app: any App
            func onRequest(_ env: inout Env) async throws {
                if env.request.url.path.hasSuffix("refused") { throw CancellationError() }
            }
            struct Handler: Faraday.Handler {
                func build(app: any App) -> any Middleware { Refuse(app: app) }
            }
        }
        struct Throwing: Middleware {
            let app: any App
            func onRequest(_ env: inout Env) async throws -> Int {
                if env.request.url.path.hasSuffix("mine") { throw CancellationError() }
                return 7
            }
            func onError(_ error: FaradayError, env: Env, state: Int?) {
                log.record("own \(state.map(String.init) ?? "none") \(error.code)")
            }
            let log: Recorder
            struct Handler: Faraday.Handler {
                let log: Recorder
                func build(app: any App) -> any Middleware { Throwing(app: app, log: log) }
            }
        }
        let stubs = TestAdapter()
        stubs.get("/v1/down") { _, _ in throw FaradayError(.connectionFailed, "down") }
        let log = Recorder()
        let connection = try makeConnection(
            [Numbered.Handler(name: "n", log: log), Throwing.Handler(log: log), Refuse.Handler()],
            adapter: stubs
        )
        let below = await #expect(throws: FaradayError.self) { try await connection.get("down").value }
        let refused = await #expect(throws: FaradayError.self) { try await connection.get("refused").value }
        let own = await #expect(throws: FaradayError.self) { try await connection.get("mine").value }
        #expect(below?.code == .connectionFailed)
        #expect(refused?.code == .cancelled)
        #expect(own?.code == .cancelled, "CancellationError thrown by a hook becomes a FaradayError")
        // The error carries the request that failed, attached on the way up.
        #expect(below?.url?.path == "/v1/down" && below?.method == .get)
        #expect(own?.url?.path == "/v1/mine")
        #expect(
            log.log == [
                "own 7 connectionFailed", "n1 failed connectionFailed",
                "own 7 cancelled", "n2 failed cancelled",
                "own none cancelled", "n3 failed cancelled",
            ]
        )
    }

    /// A middleware writing only the hooks without `state` (as before issue 46) has them called:
    /// the stateful spellings forward to them. Swift would pick a do-nothing default over a
    /// middleware's own stateless hook if the defaults were written the wrong way round.
    @Test func hooksWithoutStateAreCalled() async throws {
        struct Plain: Middleware {
            let app: any App
            let log: Recorder
            func onComplete(_ env: inout Env) throws { log.record("complete \(env.status?.code ?? 0)") }
            func onError(_ error: FaradayError, env: Env) { log.record("error \(error.code)") }
            struct Handler: Faraday.Handler {
                let log: Recorder
                func build(app: any App) -> any Middleware { Plain(app: app, log: log) }
            }
        }
        let stubs = TestAdapter()
        stubs.get("/v1/ok") { _, _ in StubResponse(status: .created) }
        stubs.get("/v1/down") { _, _ in throw FaradayError(.connectionFailed, "down") }
        let log = Recorder()
        let connection = try makeConnection([Plain.Handler(log: log)], adapter: stubs)
        _ = try await connection.get("ok").value
        _ = try? await connection.get("down").value
        #expect(log.log == ["complete 201", "error connectionFailed"])
    }

    /// What a completion hook throws reaches the caller as a `FaradayError` with the request,
    /// and the layers above see it in `onError`, each once.
    @Test func aCompletionHooksErrorIsWrappedOnceOnItsWayUp() async throws {
        struct Picky: Middleware {
            struct NotJSON: Error {}
            let app: any App
            func onComplete(_ env: inout Env) throws {
                if env.isFinal { throw NotJSON() }
            }
            struct Handler: Faraday.Handler {
                func build(app: any App) -> any Middleware { Picky(app: app) }
            }
        }
        let stubs = TestAdapter()
        stubs.get("/v1/x") { _, _ in StubResponse(body: "plain") }
        let log = Recorder()
        let connection = try makeConnection([Numbered.Handler(name: "n", log: log), Picky.Handler()], adapter: stubs)
        let error = await #expect(throws: FaradayError.self) { try await connection.get("x").value }
        #expect(error?.code == .unknown)
        #expect(error?.underlying is Picky.NotJSON)
        #expect(error?.url?.path == "/v1/x")
        #expect(log.log == ["n1 failed unknown"])
    }
}
