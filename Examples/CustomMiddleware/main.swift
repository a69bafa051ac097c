// Writing middleware: one that changes requests, one that reads responses, one that does both,
// one that calls the app below more than once, and one that may not call it at all. (The DocC
// article "Writing middleware" shows other middleware of each kind.)
// Runs against a local server.
//
//     swift run CustomMiddleware
import Faraday
import FaradayTestSupport
import Foundation

/// Request-only: gives every POST an `Idempotency-Key`, so that the server can recognise a retry.
struct IdempotencyKey: Middleware {
    let app: any App

    func onRequest(_ env: inout Env) async throws {
        guard env.request.method == .post, env.request.headers[.idempotencyKey] == nil else { return }
        env.request.headers[.idempotencyKey] = UUID().uuidString
    }

    struct Handler: Faraday.Handler {
        func build(app: any App) -> any Middleware { IdempotencyKey(app: app) }
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
        func build(app: any App) -> any Middleware { PrintCompletions(app: app) }
    }
}

/// Both: tags the request with a correlation id on the way down, and hands the id to the caller
/// on the way up (`env[CorrelationID.Key.self]`), failures included.
struct CorrelationID: Middleware {
    enum Key: EnvKey { typealias Value = String }

    let app: any App

    func onRequest(_ env: inout Env) async throws {
        let id = String(UUID().uuidString.prefix(8))
        env.request.headers[.correlationID] = id
        env[Key.self] = id
    }

    func onComplete(_ env: inout Env) throws {
        if env.isFinal { print("    correlation id \(env[Key.self] ?? "-")") }
    }

    func onError(_ error: FaradayError, env: Env) {
        print("    call \(env[Key.self] ?? "-") failed: \(error.code)")
    }

    struct Handler: Faraday.Handler {
        func build(app: any App) -> any Middleware { CorrelationID(app: app) }
    }
}

/// Calls the app below more than once: retries a 503 up to `attempts` times. Each attempt gets its
/// own env (`forAttempt()`), and a failed attempt's transfer is discarded before the next one.
struct RetryUnavailable: Middleware {
    let app: any App
    let attempts: Int

    func call(_ env: Env) async throws(FaradayError) -> Completions {
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
        func build(app: any App) -> any Middleware { RetryUnavailable(app: app, attempts: attempts) }
    }
}

/// May not call the app at all: answers a GET it has seen from memory.
struct MemoryCache: Middleware {
    let app: any App
    let store: ResponseStore

    func call(_ env: Env) async throws(FaradayError) -> Completions {
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
        func build(app: any App) -> any Middleware { MemoryCache(app: app, store: store) }
    }
}

/// Responses by URL, safe to use from any task.
final class ResponseStore: @unchecked Sendable {
    // `@unchecked Sendable`: `responses` is only touched with `lock` held.
    private let lock = NSLock()
    private var responses: [URL: ResponseData] = [:]

    subscript(url: URL) -> ResponseData? {
        get {
            lock.lock()
            defer { lock.unlock() }
            return responses[url]
        }
        set {
            lock.lock()
            defer { lock.unlock() }
            responses[url] = newValue
        }
    }
}

extension HTTPField.Name {
    static let idempotencyKey = HTTPField.Name.named("Idempotency-Key")
    static let correlationID = HTTPField.Name.named("X-Correlation-ID")
}

struct Echo: Decodable {
    let headers: [[String]]
}

let server = try await TestServer.start()
// Requests go down the stack in this order, completions come back up in the reverse one.
let connection = try Connection(url: server.baseURL.absoluteString) { builder in
    builder.use(PrintCompletions.Handler())
    builder.use(CorrelationID.Handler())
    builder.use(MemoryCache.Handler())
    builder.use(RetryUnavailable.Handler(attempts: 3))
    builder.adapter = URLSessionAdapter()
}
// The stack can be edited until the first request: IdempotencyKey goes just above the retries, so
// that every attempt of one call carries the same key.
try connection.insert(IdempotencyKey.Handler(), before: RetryUnavailable.Handler.self)
let layers = connection.handlers.map { String(reflecting: type(of: $0)).replacingOccurrences(of: ".Handler", with: "") }
print("Stack: \(layers.joined(separator: " -> ")) -> adapter")

print("1. POST /echo: the request-only and the two-way middleware's headers reach the server")
let echo = try await connection.post("echo", body: .text("hello")).decode(Echo.self)
for name in ["idempotency-key", "x-correlation-id"] {
    print("    the server saw \(name): \(echo.headers.first { $0.first?.lowercased() == name }?.last ?? "missing")")
}

print("2. POST /flaky: the server fails twice with 503, the middleware calls the app again")
let flaky = try await connection.post("flaky", params: ["key": "example", "failures": "2"], body: .text("order 42"))
    .value
print("    final status \(flaky.status?.code ?? 0): \(String(decoding: flaky.body, as: UTF8.self))")

print("3. GET /echo twice: the second is answered from memory, the server is not asked")
_ = try await connection.get("echo").value
let before = server.requestsReceived
_ = try await connection.get("echo").value
print("    requests the server received for it: \(server.requestsReceived - before)")

print("4. GET /chunked, streamed: the response-only middleware sees every frame")
let stream = connection.get("chunked", params: ["count": "3", "size": "10"], streaming: .chunks)
for try await _ in stream.completions {}

try await server.shutdown()
