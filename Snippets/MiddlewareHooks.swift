// Writing middleware: request-only, response-only, both, and calling the app more than once.
// snippet.hide
import Faraday
import Foundation

func fetchToken() async throws -> String { "fresh" }
// snippet.show

// snippet.requestOnly
/// Adds a header on the way down.
struct ClientName: Middleware {
    let app: any App
    let name: String

    func onRequest(_ env: inout Env) async throws {
        env.request.headers["X-Client-Name"] = name
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
}

// snippet.both
/// Measures each call, from the request going down to its final completion coming up (a
/// stream's frames pass untouched: `isFinal` is `false` on them).
struct Timing: Middleware {
    enum ElapsedKey: EnvKey { typealias Value = Duration }

    let app: any App

    /// The start is this layer's state for the call: two Timing layers keep two.
    func onRequest(_ env: inout Env) async throws -> ContinuousClock.Instant {
        .now
    }

    func onComplete(_ env: inout Env, state start: ContinuousClock.Instant) throws {
        guard env.isFinal else { return }
        env[ElapsedKey.self] = .now - start
    }

    func onError(_ error: FaradayError, env: Env) {
        print("\(env.request.url) failed: \(error.code)")
    }
}

// snippet.callTwice
/// On a 401, asks `renew` for a new token once and calls the app again with it.
struct ReauthenticateOnce: Middleware {
    let app: any App
    let renew: @Sendable () async throws -> String

    func call(_ env: Env) async throws(FaradayError) -> Completions {
        let first = try await app.call(env.forAttempt())
        guard first.head.status == .unauthorized, env.request.body.isReplayable else { return first }
        first.discard()  // stop the abandoned attempt's transfer
        var retry = env.forAttempt()
        do {
            retry.request.headers.bearer(try await renew())
        } catch {
            // `call` throws FaradayError: what is not one yet is wrapped where it happens.
            throw FaradayError(.authenticationFailed, "Could not renew the token: \(error)", underlying: error)
        }
        return try await app.call(retry)
    }
}

// snippet.callNone
/// Answers from a fixed table without calling the app at all, or passes the request down.
struct Canned: Middleware {
    let app: any App
    let answers: [String: String]

    func call(_ env: Env) async throws(FaradayError) -> Completions {
        guard let text = answers[env.request.url.path] else { return try await app.call(env) }
        var answered = env
        answered.response = ResponseData(status: .ok, body: Data(text.utf8))
        return .buffered(answered)
    }
}

// snippet.resource
/// Counts the calls in flight: each call takes a place on the way down and gives it back at its
/// end, whichever way it ends (the final completion, a failure, a consumer that leaves, a retry
/// that discards the answer).
final class InFlight: @unchecked Sendable {
    // `@unchecked Sendable`: `count` is only touched with `lock` held.
    private let lock = NSLock()
    private var count = 0

    var now: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }

    func enter() {
        lock.lock()
        defer { lock.unlock() }
        count += 1
    }

    func leave() {
        lock.lock()
        defer { lock.unlock() }
        count -= 1
    }
}

struct CountInFlight: Middleware {
    let app: any App
    let inFlight: InFlight

    func onRequest(_ env: inout Env) async throws { inFlight.enter() }

    func onComplete(_ env: inout Env) throws {
        if env.isFinal { inFlight.leave() }
    }

    func onError(_ error: FaradayError, env: Env) { inFlight.leave() }
}

// snippet.hooksAndCall
/// Answers HEAD requests from the GET it makes below (`call`), and records the status on the
/// way up (`onComplete`): the stack runs the hooks around a custom `call`.
struct HeadAsGet: Middleware {
    enum StatusKey: EnvKey { typealias Value = Int }
    let app: any App

    func call(_ env: Env) async throws(FaradayError) -> Completions {
        guard env.request.method == .head else { return try await app.call(env) }
        var get = env
        get.request.method = .get
        return try await app.call(get)
    }

    func onComplete(_ env: inout Env) throws {
        env[StatusKey.self] = env.status?.code
    }
}

// snippet.library
/// Adds an `X-Client-Version` header: written as a library ships it, so every type, stored
/// property, initializer and hook a user of the library touches is `public`.
public struct ClientVersion: Middleware {
    /// The app below.
    public let app: any App
    /// The handler's settings.
    public let handler: Handler

    /// Creates the middleware around `app`.
    public init(app: any App, handler: Handler) {
        self.app = app
        self.handler = handler
    }

    public func onRequest(_ env: inout Env) async throws {
        env.request.headers[.clientVersion] = handler.version
    }

    /// Builds ``ClientVersion``.
    public struct Handler: Faraday.Handler {
        /// The version sent.
        public var version: String

        /// Creates the handler.
        public init(version: String) {
            self.version = version
        }

        public func build(app: any App) -> any Middleware { ClientVersion(app: app, handler: self) }
    }
}

extension HTTPField.Name {
    /// `X-Client-Version`.
    public static let clientVersion = HTTPField.Name.named("X-Client-Version")
}
// snippet.end

// snippet.use
let inFlight = InFlight()
let connection = try Connection(url: "https://api.example.com") { builder in
    builder.use(Timing.init)
    builder.use { ReauthenticateOnce(app: $0, renew: fetchToken) }
    builder.use(RequireBody.init)
    builder.use { ClientName(app: $0, name: "docs") }
    builder.use { CountInFlight(app: $0, inFlight: inFlight) }
    builder.use(ClientVersion.Handler(version: "2.1.0"))
    builder.adapter = URLSessionAdapter()
}
let env = try await connection.get("status").value
print(env[Timing.ElapsedKey.self] ?? .zero)
// snippet.end
