// Writing middleware: request-only, response-only, both, and calling the app more than once.
// snippet.hide
import Faraday
import Foundation

// snippet.show

// snippet.requestOnly
/// Adds a header on the way down.
struct ClientName: Middleware {
    let app: any App
    let name: String

    func onRequest(_ env: inout Env) async throws {
        env.request.headers[HTTPField.Name("X-Client-Name")!] = name
    }

    struct Handler: Faraday.Handler {
        let name: String
        func build(app: any App) -> any App { ClientName(app: app, name: name) }
    }
}

// snippet.responseOnly
/// Rejects a response whose body is empty, on the way up.
struct RequireBody: Middleware {
    let app: any App

    func onComplete(_ env: inout Env) throws {
        guard env.isFinal, env.status == .ok, env.body.isEmpty, env.request.options.streaming == nil else { return }
        throw FaradayError(.invalidResponse, "The body is empty.", method: env.request.method, url: env.request.url)
    }

    struct Handler: Faraday.Handler {
        func build(app: any App) -> any App { RequireBody(app: app) }
    }
}

// snippet.both
/// Measures each call, from the request going down to each completion coming up.
struct Timing: Middleware {
    enum StartKey: EnvKey { typealias Value = ContinuousClock.Instant }
    enum ElapsedKey: EnvKey { typealias Value = Duration }

    let app: any App

    func onRequest(_ env: inout Env) async throws {
        env[StartKey.self] = .now
    }

    func onComplete(_ env: inout Env) throws {
        if let start = env[StartKey.self] { env[ElapsedKey.self] = .now - start }
    }

    func onError(_ error: FaradayError, env: Env) {
        print("\(env.request.url) failed: \(error.code)")
    }

    struct Handler: Faraday.Handler {
        func build(app: any App) -> any App { Timing(app: app) }
    }
}

// snippet.callTwice
/// Calls the app below again while it answers 503, up to `attempts` times.
struct RetryUnavailable: Middleware {
    let app: any App
    let attempts: Int

    func call(_ env: Env) async throws -> Completions {
        var attempt = 1
        while true {
            let completions = try await app.call(env.forAttempt())
            guard completions.head.status == .serviceUnavailable, attempt < attempts else { return completions }
            completions.discard()  // stop the abandoned attempt's transfer
            attempt += 1
        }
    }

    struct Handler: Faraday.Handler {
        let attempts: Int
        func build(app: any App) -> any App { RetryUnavailable(app: app, attempts: attempts) }
    }
}

// snippet.callNone
/// Answers from a fixed table without calling the app at all, or passes the request down.
struct Canned: Middleware {
    let app: any App
    let answers: [String: String]

    func call(_ env: Env) async throws -> Completions {
        guard let text = answers[env.request.url.path] else { return try await app.call(env) }
        var answered = env
        answered.response = ResponseData(status: .ok, body: Data(text.utf8))
        return .buffered(answered)
    }
}

// snippet.use
let connection = try Connection(url: "https://api.example.com") { builder in
    builder.use(Timing.Handler())
    builder.use(RetryUnavailable.Handler(attempts: 3))
    builder.use(RequireBody.Handler())
    builder.use(ClientName.Handler(name: "docs"))
    builder.adapter = URLSessionAdapter()
}
let env = try await connection.get("status").value
print(env[Timing.ElapsedKey.self] ?? .zero)
// snippet.end
