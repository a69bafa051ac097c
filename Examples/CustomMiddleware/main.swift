// Writing middleware: one that changes requests, one that reads responses, one that does both,
// one that calls the app below more than once, and one that may not call it at all.
// Runs against a local server.
//
//     swift run CustomMiddleware
import Faraday
import FaradayTestSupport
import Foundation
import Synchronization

/// Request-only: adds a header on the way down.
struct ClientName: Middleware {
    let app: any App
    let name: String

    func onRequest(_ env: inout Env) async throws {
        env.request.headers[.clientName] = name
    }

    struct Handler: Faraday.Handler {
        let name: String
        func build(app: any App) -> any App { ClientName(app: app, name: name) }
    }
}

/// Response-only: prints each completion on the way up (every frame of a streamed response).
struct PrintCompletions: Middleware {
    let app: any App

    func onComplete(_ env: inout Env) throws {
        let status = env.status.map { "\($0.code)" } ?? "-"
        print("    <- \(env.request.url.path) \(status), \(env.phase), \(env.body.count) bytes")
    }

    func onError(_ error: FaradayError, env: Env) {
        print("    <- \(env.request.url.path) failed: \(error.code)")
    }

    struct Handler: Faraday.Handler {
        func build(app: any App) -> any App { PrintCompletions(app: app) }
    }
}

/// Both: notes when the request left, and stashes the elapsed time in the env on the way up.
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

    struct Handler: Faraday.Handler {
        func build(app: any App) -> any App { Timing(app: app) }
    }
}

/// Calls the app below more than once: retries a 503 up to `attempts` times. Each attempt gets its
/// own env (`forAttempt()`), and a failed attempt's transfer is discarded before the next one.
struct RetryUnavailable: Middleware {
    let app: any App
    let attempts: Int

    func call(_ env: Env) async throws -> Completions {
        var attempt = 1
        while true {
            let completions = try await app.call(env.forAttempt())
            guard completions.head.status == .serviceUnavailable, attempt < attempts else { return completions }
            print("    attempt \(attempt) got 503, trying again")
            completions.discard()
            attempt += 1
        }
    }

    struct Handler: Faraday.Handler {
        let attempts: Int
        func build(app: any App) -> any App { RetryUnavailable(app: app, attempts: attempts) }
    }
}

/// May not call the app at all: answers a GET it has seen from memory.
struct MemoryCache: Middleware {
    let app: any App
    let store: ResponseStore

    func call(_ env: Env) async throws -> Completions {
        guard env.request.method == .get else { return try await app.call(env) }
        if let hit = store[env.request.url] {
            var cached = env
            cached.response = hit
            print("    cache hit for \(env.request.url.path)")
            return .buffered(cached)
        }
        return try await app.call(env).onComplete { env in
            if env.isFinal, let response = env.response, response.status == .ok {
                store[env.request.url] = response
            }
        }
    }

    /// Builds the middleware; every request of the connection shares its store.
    struct Handler: Faraday.Handler {
        let store = ResponseStore()
        func build(app: any App) -> any App { MemoryCache(app: app, store: store) }
    }
}

/// Responses by URL, safe to use from any task.
final class ResponseStore: Sendable {
    private let responses = Mutex<[URL: ResponseData]>([:])

    subscript(url: URL) -> ResponseData? {
        get { responses.withLock { $0[url] } }
        set { responses.withLock { $0[url] = newValue } }
    }
}

extension HTTPField.Name {
    static let clientName = HTTPField.Name("X-Client-Name")!
}

struct Echo: Decodable {
    let headers: [[String]]
}

let server = try await TestServer.start()
// Requests go down the stack in this order, completions come back up in the reverse one.
let connection = try Connection(url: server.baseURL.absoluteString) { builder in
    builder.use(PrintCompletions.Handler())
    builder.use(Timing.Handler())
    builder.use(MemoryCache.Handler())
    builder.use(RetryUnavailable.Handler(attempts: 3))
    builder.adapter = URLSessionAdapter()
}
// The stack can be edited until the first request: put ClientName just above the adapter's layer.
try connection.insert(ClientName.Handler(name: "custom-middleware-example"), after: RetryUnavailable.Handler.self)
let layers = connection.handlers.map { String(reflecting: type(of: $0)).replacingOccurrences(of: ".Handler", with: "") }
print("Stack: \(layers.joined(separator: " -> ")) -> adapter")

print("1. GET /echo: the request-only middleware's header reaches the server")
let echo = try await connection.get("echo").decode(Echo.self)
let sent = echo.headers.first { $0.first?.lowercased() == "x-client-name" }?.last ?? "missing"
print("    the server saw X-Client-Name: \(sent)")

print("2. GET /flaky: the server fails twice with 503, the middleware calls the app again")
let flaky = try await connection.get("flaky", params: ["key": "example", "failures": "2"]).value
print("    final status \(flaky.status?.code ?? 0): \(String(decoding: flaky.body, as: UTF8.self))")
if let elapsed = flaky[Timing.ElapsedKey.self] { print("    Timing saw the whole call, retries included: \(elapsed)") }

print("3. GET /echo again: answered from memory, the server is not asked")
let before = server.requestsReceived
_ = try await connection.get("echo").value
print("    requests the server received for it: \(server.requestsReceived - before)")

print("4. GET /chunked, streamed: the response-only middleware sees every frame")
let stream = connection.get("chunked", params: ["count": "3", "size": "10"]) { $0.options.streaming = .chunks }
for try await _ in stream.completions {}

try await server.shutdown()
