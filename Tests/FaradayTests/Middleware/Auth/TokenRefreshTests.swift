import Faraday
import Foundation
import Testing

@Suite(.timeLimit(.minutes(1))) struct TokenRefreshTests {
    /// Counts refreshes and hands out `token-1`, `token-2`…
    final class Issuer: Sendable {
        private let count = Locked(0)
        var refreshes: Int { count.withLock { $0 } }
        func next() -> OAuthCredential {
            let number = count.withLock {
                $0 += 1
                return $0
            }
            return OAuthCredential(accessToken: "token-\(number)", refreshToken: "r", expiresIn: .seconds(3600))
        }
    }

    /// A stub that accepts only `Bearer <valid>`, answering 401 otherwise.
    private func stubs(accepting valid: @escaping @Sendable (String) -> Bool) -> TestAdapter {
        let stubs = TestAdapter()
        stubs.get("/v1/data") { env, _ in
            let token = env.request.headers[.authorization].map { String($0.dropFirst("Bearer ".count)) } ?? ""
            return valid(token) ? StubResponse(body: token) : StubResponse(status: .unauthorized, body: "expired")
        }
        return stubs
    }

    private let expired = OAuthCredential(
        accessToken: "old",
        refreshToken: "r",
        expiresAt: Date(timeIntervalSinceNow: -10)
    )
    private let current = OAuthCredential(
        accessToken: "old",
        refreshToken: "r",
        expiresAt: Date(timeIntervalSinceNow: 3600)
    )

    @Test func aValidTokenIsSentWithoutRefreshing() async throws {
        let issuer = Issuer()
        let store = CredentialStore(credential: current) { _ in issuer.next() }
        let connection = try makeConnection([TokenRefresh.Handler(store: store)], adapter: stubs { $0 == "old" })
        #expect(try await connection.get("data").value.response?.text == "old")
        #expect(issuer.refreshes == 0)
    }

    @Test func aDueTokenIsRefreshedBeforeUseOnceForManyConcurrentRequests() async throws {
        let issuer = Issuer()
        let store = CredentialStore(credential: expired) { _ in
            try await Task.sleep(for: .milliseconds(20))
            return issuer.next()
        }
        let connection = try makeConnection([TokenRefresh.Handler(store: store)], adapter: stubs { $0 == "token-1" })
        let tokens = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<20 { group.addTask { try await connection.get("data").value.response?.text } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(tokens == Array(repeating: "token-1", count: 20))
        #expect(issuer.refreshes == 1)
        #expect(store.refreshCount == 1)
    }

    @Test func a401RefreshesOnceAndRetriesForManyConcurrentRequests() async throws {
        let issuer = Issuer()
        let store = CredentialStore(credential: current) { _ in
            try await Task.sleep(for: .milliseconds(20))
            return issuer.next()
        }
        let stubs = stubs { $0 == "token-1" }
        let connection = try makeConnection([TokenRefresh.Handler(store: store)], adapter: stubs)
        let tokens = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<20 { group.addTask { try await connection.get("data").value.response?.text } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(tokens == Array(repeating: "token-1", count: 20))
        #expect(issuer.refreshes == 1)
    }

    @Test func aFailedRefreshFailsEveryWaitingRequestWithItsError() async throws {
        struct ServerDown: Error {}
        let store = CredentialStore(credential: expired) { _ in
            try await Task.sleep(for: .milliseconds(20))
            throw ServerDown()
        }
        let stubs = stubs { _ in true }
        let connection = try makeConnection([TokenRefresh.Handler(store: store)], adapter: stubs)
        let failures = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    do {
                        _ = try await connection.get("data").value
                        return false
                    } catch let error as FaradayError {
                        return error.code == .authenticationFailed && error.underlying is ServerDown
                    } catch {
                        return false
                    }
                }
            }
            return await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(failures == 10)
        #expect(stubs.calls.isEmpty)
        #expect(store.refreshCount == 1)
    }

    @Test func theRefreshWindowStopsARefreshLoop() async throws {
        let issuer = Issuer()
        let store = CredentialStore(credential: current, window: .init(interval: .seconds(3600), maximumAttempts: 2)) {
            _ in issuer.next()
        }
        let connection = try makeConnection([TokenRefresh.Handler(store: store)], adapter: stubs { _ in false })
        // Each call: 401, one refresh, a retry that gets 401 again (the server rejects every token).
        #expect(try await connection.get("data").value.status == .unauthorized)
        #expect(try await connection.get("data").value.status == .unauthorized)
        await #expect {
            try await connection.get("data").value
        } throws: { error in
            (error as? FaradayError)?.code == .authenticationFailed
        }
        #expect(issuer.refreshes == 2)
    }

    @Test func theRefreshRequestCanUseTheSameConnection() async throws {
        let stubs = stubs { $0 == "fresh" }
        stubs.post("/v1/oauth/token", body: .equals("grant_type=refresh_token&refresh_token=r")) { env, _ in
            // The refresh request itself is not given a bearer token.
            StubResponse(body: env.request.headers[.authorization] == nil ? "fresh" : "wrong")
        }
        let box = Locked<Connection?>(nil)
        let store = CredentialStore(credential: expired) { old in
            guard let connection = box.withLock({ $0 }) else { throw CancellationError() }
            let token =
                try await connection.post(
                    "oauth/token",
                    body: .form([
                        "grant_type": "refresh_token", "refresh_token": .string(old.refreshToken ?? ""),
                    ])
                ).value.response?.text ?? ""
            return OAuthCredential(accessToken: token, refreshToken: "r", expiresIn: .seconds(60 * 60))
        }
        let connection = try makeConnection([URLEncoded.Handler(), TokenRefresh.Handler(store: store)], adapter: stubs)
        box.withLock { $0 = connection }
        // The store's refresh holds the connection through the box: let go of it at the end.
        defer { box.withLock { $0 = nil } }
        #expect(try await connection.get("data").value.response?.text == "fresh")
    }

    @Test func requestsWithTheirOwnAuthorizationPassUntouched() async throws {
        let issuer = Issuer()
        let store = CredentialStore(credential: expired) { _ in issuer.next() }
        let connection = try makeConnection([TokenRefresh.Handler(store: store)], adapter: stubs { $0 == "mine" })
        #expect(try await connection.get("data") { $0.headers.bearer("mine") }.value.response?.text == "mine")
        #expect(issuer.refreshes == 0)
    }

    @Test func aOneShotBodyIsNotRetried() async throws {
        let issuer = Issuer()
        let store = CredentialStore(credential: current) { _ in issuer.next() }
        let stubs = TestAdapter()
        stubs.post("/v1/up") { _, _ in StubResponse(status: .unauthorized) }
        let connection = try makeConnection([TokenRefresh.Handler(store: store)], adapter: stubs)
        let body = RequestBody.stream(
            AsyncStream {
                $0.yield(Data("x".utf8))
                $0.finish()
            }
        )
        #expect(try await connection.post("up", body: body).value.status == .unauthorized)
        #expect(stubs.calls.count == 1)
        #expect(issuer.refreshes == 0)
    }

    @Test func aStreamedRejectionIsDiscardedAndTheRetryStreams() async throws {
        let issuer = Issuer()
        let store = CredentialStore(credential: current) { _ in issuer.next() }
        let stubs = TestAdapter()
        stubs.get("/v1/s") { env, _ in
            env.request.headers[.authorization] == "Bearer token-1"
                ? StubResponse(body: ResponseBody(pieces: [Data("a".utf8), Data("b".utf8)]))
                : StubResponse(
                    status: .unauthorized,
                    body: ResponseBody(pieces: [Data("no".utf8)]),
                    ending: .waitForCancellation
                )
        }
        let tokens = Locked<[CancellationToken]>([])
        let capture = Capture.Handler { env in tokens.withLock { $0.append(env.cancellation) } }
        let connection = try makeConnection([TokenRefresh.Handler(store: store), capture], adapter: stubs)
        var frames: [String] = []
        for try await env in connection.get("s", configure: { $0.options.streaming = .chunks }).completions
        where !env.isFinal {
            frames.append(env.response?.text ?? "")
        }
        #expect(frames == ["a", "b"])
        let attempts = tokens.withLock { $0 }
        #expect(attempts.count == 2)
        #expect(attempts.first?.isCancelled == true, "the rejected transfer was stopped")
        #expect(attempts.last?.isCancelled == false, "the call itself was not cancelled")
    }

    @Test func resetForgetsTheCredentialAndIgnoresARefreshInFlight() async throws {
        let started = AsyncStream<Void>.makeStream()
        let release = AsyncStream<Void>.makeStream()
        let issuer = Issuer()
        let store = CredentialStore(credential: expired) { _ in
            started.continuation.yield()
            for await _ in release.stream {}
            return issuer.next()
        }
        let connection = try makeConnection([TokenRefresh.Handler(store: store)], adapter: stubs { $0 == "token-1" })
        let inFlight = Task { try await connection.get("data").value.response?.text }
        for await _ in started.stream { break }
        connection.reset()
        release.continuation.finish()
        // The call in flight finishes with the refresh it started; the store stays logged out.
        #expect(try await inFlight.value == "token-1")
        #expect(store.credential == nil)
        await #expect {
            try await connection.get("data").value
        } throws: { error in
            (error as? FaradayError)?.code == .authenticationFailed
        }
    }
}

/// Calls a closure with the env of every request that passes.
struct Capture: Middleware {
    let app: any App
    let observe: @Sendable (Env) -> Void

    func onRequest(_ env: inout Env) async throws { observe(env) }

    struct Handler: Faraday.Handler {
        let observe: @Sendable (Env) -> Void
        init(_ observe: @escaping @Sendable (Env) -> Void) { self.observe = observe }
        func build(app: any App) -> any Middleware { Capture(app: app, observe: observe) }
    }
}
