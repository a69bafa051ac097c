import Faraday
import Foundation
import HTTPTypes
import Testing

// The README's example: a complete custom middleware in a dozen lines.
struct RequestID: Middleware {
    let app: any App

    func onRequest(_ env: inout Env) async throws {
        env.request.headers[HTTPField.Name("X-Request-ID")!] = UUID().uuidString
    }

    func onComplete(_ env: inout Env) throws {
        env[RequestIDKey.self] = env.request.headers[HTTPField.Name("X-Request-ID")!]
    }

    struct Handler: Faraday.Handler {
        func build(app: any App) -> any Middleware { RequestID(app: app) }
    }
}

enum RequestIDKey: EnvKey { typealias Value = String }

/// Answers from a cache without calling the app below, after the first call.
struct TinyCache: Middleware {
    let app: any App
    let store: Recorder

    func call(_ env: Env) async throws(FaradayError) -> Completions {
        if store.log.contains(env.request.url.absoluteString) {
            var hit = env
            hit.response = ResponseData(status: .ok, body: Data("cached".utf8))
            return .buffered(hit)
        }
        store.record(env.request.url.absoluteString)
        return try await app.call(env)
    }

    struct Handler: Faraday.Handler {
        let store = Recorder()
        func build(app: any App) -> any Middleware { TinyCache(app: app, store: store) }
    }
}

@Suite(.timeLimit(.minutes(1))) struct CustomMiddlewareTests {
    @Test func aRequestIDMiddlewareSetsTheHeaderAndStashesIt() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/x") { env, _ in
            StubResponse(body: env.request.headers[HTTPField.Name("X-Request-ID")!] ?? "missing")
        }
        let connection = try makeConnection([RequestID.Handler()], adapter: stubs)
        let env = try await connection.get("x").value
        let id = try #require(env[RequestIDKey.self])
        #expect(UUID(uuidString: id) != nil)
        #expect(env.response?.text == id)
    }

    @Test func aMiddlewareMayNotCallTheAppAtAll() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/x") { _, _ in StubResponse(body: "fresh") }
        let connection = try makeConnection([TinyCache.Handler()], adapter: stubs)
        #expect(try await connection.get("x").value.response?.text == "fresh")
        #expect(try await connection.get("x").value.response?.text == "cached")
        #expect(stubs.calls.count == 1)
    }

    @Test func completionsCanBeTransformedWithAClosure() async throws {
        struct Upcase: Middleware {
            let app: any App
            func call(_ env: Env) async throws(FaradayError) -> Completions {
                try await app.call(env).onComplete { env in
                    let upper = (env.response?.text ?? "").uppercased()
                    env.response?.body = Data(upper.utf8)
                }
            }
            struct Handler: Faraday.Handler { func build(app: any App) -> any Middleware { Upcase(app: app) } }
        }
        let stubs = TestAdapter()
        stubs.get("/v1/x") { _, _ in StubResponse(body: ResponseBody(pieces: [Data("ab".utf8), Data("cd".utf8)])) }
        let connection = try makeConnection([Upcase.Handler()], adapter: stubs)
        #expect(try await connection.get("x").value.response?.text == "ABCD")
        var frames: [String] = []
        for try await env in connection.get("x", configure: { $0.options.streaming = .chunks }).completions {
            frames.append(env.response?.text ?? "")
        }
        #expect(frames == ["AB", "CD", ""])
    }
}
