import Faraday
import Foundation
import Testing

@Suite(.timeLimit(.minutes(1))) struct RackBuilderTests {
    private func labels(_ builder: RackBuilder) -> [String] {
        builder.handlers.map { handler in
            switch handler {
            case let marker as Marker.Handler: marker.label
            case let recording as Recording.Handler: recording.name
            default: "\(type(of: handler))"
            }
        }
    }

    /// Issue 45 made insert and swap refuse an adapter's handler, which they put mid-stack,
    /// cutting off every layer below it; issue 46 made it no ``Handler`` at all, so that only
    /// `use` takes it and it sets the adapter: nothing can put an adapter mid-stack.
    @Test func anAdaptersHandlerSetsTheAdapterAndIsNoLayer() throws {
        func isLayer(_ value: Any) -> Bool { value is any Faraday.Handler }
        #expect(!isLayer(URLSessionAdapter.Handler()))
        var builder = RackBuilder()
        builder.use(Marker.Handler(label: "m1"))
        builder.use(URLSessionAdapter.Handler())
        #expect(labels(builder) == ["m1"])
        #expect(builder.adapter is URLSessionAdapter)
        let connection = Connection(url: URL(string: "https://example.com"))
        try connection.use(handler: URLSessionAdapter.Handler())
        #expect(connection.handlers.isEmpty)
    }

    /// Issue 46 (D1): a middleware that needs no handler of its own is added by the function that
    /// builds it around the app below (Ruby Faraday's `use(Klass)`): `init` alone, or a closure
    /// with its settings. Both layers run their hooks, outermost first on the way down.
    @Test func aMiddlewareIsAddedByTheFunctionThatBuildsIt() async throws {
        struct Tag: Middleware {
            let app: any App
            let value: String

            func onRequest(_ env: inout Env) async throws {
                env.request.headers.append(HTTPField(name: .named("X-Tag"), value: value))
            }

            func onComplete(_ env: inout Env) throws {
                env.response?.headers.append(HTTPField(name: .named("X-Seen"), value: value))
            }
        }
        struct Outermost: Middleware {
            let app: any App

            func onRequest(_ env: inout Env) async throws {
                env.request.headers.append(HTTPField(name: .named("X-Tag"), value: "outer"))
            }
        }
        let stubs = TestAdapter()
        stubs.stub(.get, .path("/v1/x")) { env, _ in
            StubResponse(body: env.request.headers[values: .named("X-Tag")].joined(separator: ","))
        }
        let connection = try Connection(url: "https://api.example.com/v1/") { builder in
            builder.use(Outermost.init)
            builder.use { Tag(app: $0, value: "a") }
            builder.adapter = stubs
        }
        try connection.use { Tag(app: $0, value: "b") }
        let env = try await connection.get("x").value
        #expect(env.response?.text == "outer,a,b")
        #expect(env.response?.headers[values: HTTPField.Name.named("X-Seen")] == ["b", "a"])
    }

    @Test func handlersCanBePlacedByPositionAndType() throws {
        let recorder = Recorder()
        var builder = RackBuilder()
        builder.use(Marker.Handler(label: "m1"))
        builder.use(Recording.Handler(name: "r", recorder: recorder))
        try builder.insert(Marker.Handler(label: "first"), at: 0)
        try builder.insert(Marker.Handler(label: "before-r"), before: Recording.Handler.self)
        try builder.insert(Marker.Handler(label: "after-r"), after: Recording.Handler.self)
        #expect(labels(builder) == ["first", "m1", "before-r", "r", "after-r"])

        try builder.swap(Recording.Handler.self, with: Marker.Handler(label: "swapped"))
        #expect(labels(builder) == ["first", "m1", "before-r", "swapped", "after-r"])
        builder.delete(Marker.Handler.self)
        #expect(builder.handlers.isEmpty)
    }

    @Test func placingRelativeToAMissingHandlerIsAnError() {
        var builder = RackBuilder()
        #expect(throws: FaradayError.self) {
            try builder.insert(Marker.Handler(label: "x"), before: CallTwice.Handler.self)
        }
        #expect(throws: FaradayError.self) {
            try builder.swap(CallTwice.Handler.self, with: Marker.Handler(label: "x"))
        }
        #expect(throws: FaradayError.self) { try builder.insert(Marker.Handler(label: "x"), at: 3) }
    }

    @Test func theStackLocksOnTheFirstRequest() async throws {
        let stubs = TestAdapter()
        stubs.stub(.get, .path("/v1/x"), response: StubResponse())
        let connection = try makeConnection(adapter: stubs)
        try connection.use(handler: Marker.Handler(label: "before first request"))
        _ = try await connection.get("x").value

        for edit in [
            { try connection.use(Marker.Handler(label: "late")) },
            { try connection.insert(Marker.Handler(label: "late"), at: 0) },
            { try connection.delete(Marker.Handler.self) },
            { try connection.editStack { $0.adapter = TestAdapter() } },
        ] as [() throws -> Void] {
            #expect {
                try edit()
            } throws: { error in
                (error as? FaradayError)?.code == .stackLocked
            }
        }
        #expect(connection.handlers.count == 1)
    }

    @Test func aConnectionWithoutAnAdapterUsesURLSession() async throws {
        // Port 1 on the loopback: nothing listens, so URLSession's own failure comes back.
        let connection = Connection(url: URL(string: "http://127.0.0.1:1"))
        await #expect {
            try await connection.get("x").value
        } throws: { error in
            (error as? FaradayError)?.code == .connectionFailed
        }
    }

    @Test func anAdaptersHandlerInstallsTheAdapterInsteadOfAMiddleware() throws {
        let stubs = TestAdapter()
        var builder = RackBuilder()
        builder.use(URLSessionAdapter.Handler())
        #expect(builder.adapter is URLSessionAdapter && builder.handlers.isEmpty)
        builder.adapter = stubs
        #expect(builder.adapter is TestAdapter)
    }
}
