import Faraday

/// A thread-safe log of events, shared by the recording middleware of one test.
final class Recorder: Sendable {
    private let events = Locked<[String]>([])

    func record(_ event: String) { events.withLock { $0.append(event) } }

    var log: [String] { events.withLock { $0 } }
}

/// A middleware that records its hooks under a name.
struct Recording: Middleware {
    let app: any App
    let name: String
    let recorder: Recorder

    func onRequest(_ env: inout Env) async throws {
        recorder.record("\(name).request")
        env.request.headers.append(.init(name: .init("X-Trail")!, value: name))
    }

    func onComplete(_ env: inout Env) throws {
        recorder.record("\(name).complete(\(env.phase))")
    }

    func onError(_ error: FaradayError, env: Env) {
        recorder.record("\(name).error(\(error.code))")
    }

    struct Handler: Faraday.Handler {
        let name: String
        let recorder: Recorder
        func build(app: any App) -> any Middleware { Recording(app: app, name: name, recorder: recorder) }
    }
}

/// Another handler type, for positional insertion tests.
struct Marker: Middleware {
    let app: any App
    struct Handler: Faraday.Handler {
        let label: String
        func build(app: any App) -> any Middleware { Marker(app: app) }
    }
}

/// A middleware that calls the app below twice and returns the second result (a crude retry).
struct CallTwice: Middleware {
    let app: any App
    func call(_ env: Env) async throws(FaradayError) -> Completions {
        _ = try await app.call(env)
        return try await app.call(env)
    }
    struct Handler: Faraday.Handler {
        func build(app: any App) -> any Middleware { CallTwice(app: app) }
    }
}

/// A middleware whose `onRequest` is a closure: for the one-line request middleware of a test.
struct OnRequest: Middleware {
    let app: any App
    let body: @Sendable (inout Env) async throws -> Void

    func onRequest(_ env: inout Env) async throws { try await body(&env) }

    struct Handler: Faraday.Handler {
        let body: @Sendable (inout Env) async throws -> Void
        init(_ body: @escaping @Sendable (inout Env) async throws -> Void) { self.body = body }
        func build(app: any App) -> any Middleware { OnRequest(app: app, body: body) }
    }
}

/// Two handlers with `first` above `second`, or below it: one row of the order table, either way.
func ordered(_ first: any Handler, _ second: any Handler, firstAbove: Bool) -> [any Handler] {
    firstAbove ? [first, second] : [second, first]
}

/// A connection on a fresh TestAdapter with the given handlers.
func makeConnection(
    url: String = "https://api.example.com/v1",
    _ handlers: [any Handler] = [],
    adapter: TestAdapter = TestAdapter()
) throws -> Connection {
    try Connection(url: url) { builder in
        for handler in handlers { builder.use(handler) }
        builder.adapter = adapter
    }
}
