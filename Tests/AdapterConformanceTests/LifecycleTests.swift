import Faraday
import FaradayAsyncHTTPClient
import FaradayTestSupport
import Foundation
import HTTPTypes
import Testing

/// The terminal guarantee: for every way a call can end, a recording middleware at the top, in
/// the middle and at the bottom of the stack sees exactly one terminal event for each call that
/// reached it, on both network adapters and on the TestAdapter.
extension AdapterConformance {
    @Suite(.timeLimit(.minutes(5))) struct LifecycleTests {
        /// The adapters of the matrix: the two network adapters, and stubs that answer like the
        /// test server's routes.
        enum Target: String, CaseIterable, Sendable, CustomTestStringConvertible {
            case asyncHTTPClient, urlSession, testAdapter
            var testDescription: String { rawValue }
        }

        /// The ways a call can end.
        enum Ending: String, CaseIterable, Sendable, CustomTestStringConvertible {
            case bufferedSuccess, streamedToTheEnd, errorBeforeTheHead, errorMidStream, consumerLeavesTheLoop
            case handleDroppedAfterHead, cancelCalled, taskCancelled, deadlinePasses
            case discardedByRetry, streamDiscardedByRetry, discardedByFollowRedirects, discardedByTokenRefresh
            var testDescription: String { rawValue }
        }

        @Test(arguments: Target.allCases, Ending.allCases)
        func everyLayerSeesExactlyOneEnd(_ target: Target, _ ending: Ending) async throws {
            let log = ProbeLog()
            try await withLifecycleConnection(target, log: log, deadline: ending == .deadlinePasses) { connection in
                let outcome = try await run(ending, on: connection)
                let ends = log.ends
                for probe in ["top", "middle", "bottom"] {
                    #expect(log.started(probe) > 0, "\(probe) saw the call")
                    #expect(log.unbalanced(probe).isEmpty, "\(probe): \(ends)")
                }
                #expect(log.ends(of: "top") == [outcome], "\(ends)")
                switch ending {
                case .discardedByRetry, .streamDiscardedByRetry, .discardedByFollowRedirects, .discardedByTokenRefresh:
                    #expect(
                        log.ends(of: "bottom") == ["cancelled", "final"],
                        "the discarded answer ended for the layers below"
                    )
                default:
                    break
                }
            }
        }

        /// Runs the call ended in `ending`'s way; returns the terminal event the top layer must see.
        private func run(_ ending: Ending, on connection: Connection) async throws -> String {
            let streamed: @Sendable (inout Request) -> Void = { $0.options.streaming = .chunks }
            switch ending {
            case .bufferedSuccess:
                #expect(try await connection.get("chunked").value.body.count == 48)
                return "final"
            case .streamedToTheEnd:
                var frames = 0
                for try await env in connection.get("chunked", configure: streamed).completions where !env.isFinal {
                    frames += 1
                }
                #expect(frames >= 1)
                return "final"
            case .errorBeforeTheHead:
                await #expect(throws: FaradayError.self) { try await connection.get("fault/reset-before-head").value }
                return "connectionFailed"
            case .errorMidStream:
                await #expect(throws: FaradayError.self) {
                    for try await _ in connection.get("fault/reset-mid-body", configure: streamed).completions {}
                }
                return "connectionFailed"
            case .consumerLeavesTheLoop:
                for try await _ in connection.get("chunked?count=1000&size=1024", configure: streamed).completions {
                    break
                }
                return "cancelled"
            case .handleDroppedAfterHead:
                do {
                    let response = connection.get("stall", configure: streamed)
                    #expect(try await response.head.status == .ok)
                }
                return "cancelled"
            case .cancelCalled:
                let response = connection.get("stall", configure: streamed)
                await #expect(throws: FaradayError.self) {
                    for try await _ in response.completions { response.cancel() }
                }
                return "cancelled"
            case .taskCancelled:
                let response = connection.get("stall", configure: streamed)
                let task = Task { try await response.value }
                _ = try await response.head
                task.cancel()
                let result = await task.result
                #expect(throws: FaradayError.self) { try result.get() }
                return "cancelled"
            case .deadlinePasses:
                await #expect(throws: FaradayError.self) {
                    try await connection.get("stall", configure: streamed).value
                }
                return "callTimeout"
            case .discardedByRetry:
                let env = try await connection.get("flaky?failures=1&key=\(UUID().uuidString)").value
                #expect(env.status == .ok)
                return "final"
            case .streamDiscardedByRetry:
                let key = UUID().uuidString
                for try await _ in connection.get("flaky?failures=1&key=\(key)", configure: streamed).completions {}
                return "final"
            case .discardedByFollowRedirects:
                #expect(try await connection.get("redirect/302?to=/chunked").value.body.count == 48)
                return "final"
            case .discardedByTokenRefresh:
                #expect(try await connection.get("protected").value.status == .ok)
                return "final"
            }
        }

        @Test(arguments: [Target.asyncHTTPClient, .urlSession])
        func aConcurrencyLimitOfTwoSurvivesAThousandAbandonedStreams(_ target: Target) async throws {
            let limit = ConcurrencyLimit.Handler(maximum: 2)
            let kind: AdapterKind = target == .asyncHTTPClient ? .asyncHTTPClient : .urlSession
            try await withConnection(kind, handlers: [limit]) { connection, _ in
                let streamed: @Sendable (inout Request) -> Void = { $0.options.streaming = .chunks }
                for round in 0..<1000 {
                    let response = connection.get("chunked?count=100&size=1024", configure: streamed)
                    switch round % 3 {
                    case 0:
                        for try await _ in response.completions { break }
                    case 1:
                        _ = try await response.head
                    default:
                        _ = try await response.head
                        response.cancel()
                        _ = try? await response.value
                    }
                }
                #expect(limit.waiting == 0)
                // Both places are free: two calls side by side get theirs without waiting.
                async let first = connection.get("chunked").value
                async let second = connection.get("chunked").value
                #expect(try await first.status == .ok)
                #expect(try await second.status == .ok)
                #expect(limit.waiting == 0)
            }
        }
    }
}

// MARK: The probe

/// Each call's start and terminal events, per probe.
final class ProbeLog: Sendable {
    private let state = Locked((next: 0, started: [String: [Int]](), ends: [String: [(Int, String)]]()))

    func start(_ probe: String) -> Int {
        state.withLock { state in
            state.next += 1
            state.started[probe, default: []].append(state.next)
            return state.next
        }
    }

    func end(_ probe: String, call: Int?, _ event: String) {
        state.withLock { $0.ends[probe, default: []].append((call ?? -1, event)) }
    }

    func started(_ probe: String) -> Int { state.withLock { $0.started[probe]?.count ?? 0 } }

    /// The terminal events of `probe`, in call order.
    func ends(of probe: String) -> [String] {
        state.withLock { $0.ends[probe, default: []].sorted { $0.0 < $1.0 }.map(\.1) }
    }

    var ends: [String: [String]] { state.withLock { $0.ends.mapValues { $0.map { "\($0.0):\($0.1)" } } } }

    /// The calls of `probe` without exactly one terminal event.
    func unbalanced(_ probe: String) -> [Int] {
        state.withLock { state in
            let ends = state.ends[probe, default: []].map(\.0)
            let calls = Set(state.started[probe, default: []] + ends)
            return calls.filter { call in ends.filter { $0 == call }.count != 1 }.sorted()
        }
    }
}

/// Records, under its name, the start of every call that reaches it and the terminal event.
struct Probe: Middleware {
    let app: any App
    let name: String
    let log: ProbeLog

    private enum CallsKey: EnvKey { typealias Value = [String: Int] }

    func onRequest(_ env: inout Env) async throws {
        var calls = env[CallsKey.self] ?? [:]
        calls[name] = log.start(name)
        env[CallsKey.self] = calls
    }

    func onComplete(_ env: inout Env) throws {
        if env.isFinal { log.end(name, call: env[CallsKey.self]?[name], "final") }
    }

    func onError(_ error: FaradayError, env: Env) {
        log.end(name, call: env[CallsKey.self]?[name], "\(error.code)")
    }

    struct Handler: Faraday.Handler {
        let name: String
        let log: ProbeLog
        func build(app: any App) -> any Middleware { Probe(app: app, name: name, log: log) }
    }
}

/// A connection with probes at the top, middle and bottom, around Timeout, Retry,
/// FollowRedirects and TokenRefresh, on the target's adapter.
private func withLifecycleConnection(
    _ target: AdapterConformance.LifecycleTests.Target,
    log: ProbeLog,
    deadline: Bool,
    _ body: (Connection) async throws -> Void
) async throws {
    let store = CredentialStore(credential: OAuthCredential(accessToken: "stale-token")) { _ in
        OAuthCredential(accessToken: "fresh-token")
    }
    let handlers: [any Handler] = [
        Probe.Handler(name: "top", log: log),
        Timeout.Handler(deadline ? .milliseconds(300) : .seconds(60)),
        Retry.Handler(statuses: [503], sleep: { _ in }),
        Probe.Handler(name: "middle", log: log),
        FollowRedirects.Handler(),
        TokenRefresh.Handler(store: store),
        Probe.Handler(name: "bottom", log: log),
    ]
    switch target {
    case .asyncHTTPClient, .urlSession:
        try await withConnection(target == .asyncHTTPClient ? .asyncHTTPClient : .urlSession, handlers: handlers) {
            connection,
            _ in try await body(connection)
        }
    case .testAdapter:
        let connection = try Connection(url: "http://stubs.test") { builder in
            for handler in handlers { builder.use(handler) }
            builder.adapter = serverLikeStubs()
        }
        try await body(connection)
    }
}

/// A TestAdapter that answers the routes the lifecycle matrix uses as the test server does.
private func serverLikeStubs() -> TestAdapter {
    let stubs = TestAdapter()
    stubs.get("/chunked") { env, _ in
        let query = URLComponents(url: env.request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        let count = query.first { $0.name == "count" }?.value.flatMap(Int.init) ?? 3
        let size = query.first { $0.name == "size" }?.value.flatMap(Int.init) ?? 16
        return StubResponse(
            body: ResponseBody(
                pieces: (0..<count).map { Data(("\($0):" + String(repeating: "x", count: size)).utf8.prefix(size)) }
            )
        )
    }
    stubs.get("/stall") { _, _ in
        StubResponse(body: ResponseBody(pieces: [Data("first".utf8)]), ending: .waitForCancellation)
    }
    stubs.get("/fault/reset-before-head") { _, _ in throw FaradayError(.connectionFailed, "reset") }
    stubs.get("/fault/reset-mid-body") { _, _ in
        StubResponse(
            body: ResponseBody(pieces: [Data(repeating: 0x61, count: 1000)]),
            ending: .fail(FaradayError(.connectionFailed, "reset"))
        )
    }
    let flaky = Locked([String: Int]())
    stubs.get("/flaky") { env, _ in
        let key =
            URLComponents(url: env.request.url, resolvingAgainstBaseURL: false)?.queryItems?
            .first { $0.name == "key" }?.value ?? ""
        let attempt = flaky.withLock { counts -> Int in
            counts[key, default: 0] += 1
            return counts[key] ?? 0
        }
        return attempt == 1 ? StubResponse(status: .serviceUnavailable, body: "failure 1") : StubResponse(body: "ok")
    }
    stubs.get("/redirect/302") { _, _ in
        StubResponse(status: .found, headers: [.location: "/chunked"], body: "redirecting")
    }
    stubs.get("/protected") { env, _ in
        env.request.headers[.authorization] == "Bearer fresh-token"
            ? StubResponse(body: "secret data") : StubResponse(status: .unauthorized, body: "expired")
    }
    return stubs
}
