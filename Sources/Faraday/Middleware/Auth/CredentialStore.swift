#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Holds an ``OAuthCredential`` and refreshes it, one refresh at a time, for ``TokenRefresh``.
///
/// - Single flight: however many requests find the credential due (or rejected) at once, one
///   refresh runs; the others wait for it and go on with its result, or fail with its error.
/// - A refresh window stops loops: more than ``RefreshWindow/maximumAttempts`` refreshes within
///   ``RefreshWindow/interval`` fail with ``FaradayError/Code/authenticationFailed`` instead of
///   refreshing again.
/// - The refresh function may send its request through the same connection: requests made while
///   it runs pass ``TokenRefresh`` untouched, so they neither wait for themselves nor get a stale
///   token. The connection holds the store, so hold the connection weakly in the refresh function
///   (a `weak` reference in a box set after the connection is made), or the two keep each other
///   alive.
///
/// ```swift
/// let store = CredentialStore(credential: saved) { old in
///     let reply = try await connection.post("oauth/token", body: .form([
///         "grant_type": "refresh_token", "refresh_token": .string(old.refreshToken ?? ""),
///     ])).decode(TokenReply.self)
///     return OAuthCredential(accessToken: reply.accessToken, refreshToken: reply.refreshToken,
///                            expiresIn: .seconds(reply.expiresIn))
/// }
/// ```
public final class CredentialStore: Sendable {
    /// Renews a credential; it receives the current one.
    public typealias Refresh = @Sendable (OAuthCredential) async throws -> OAuthCredential

    /// How many refreshes may happen within a span of time.
    public struct RefreshWindow: Sendable {
        /// The span.
        public var interval: Duration
        /// The most refreshes allowed within it.
        public var maximumAttempts: Int

        /// Creates a window; the default allows 5 refreshes in 30 seconds.
        public init(interval: Duration = .seconds(30), maximumAttempts: Int = 5) {
            self.interval = interval
            self.maximumAttempts = maximumAttempts
        }
    }

    private struct State {
        var credential: OAuthCredential?
        /// Bumped by ``reset()`` and ``update(_:)`` so that a refresh started before is not stored.
        var generation = 0
        var refreshing: Task<OAuthCredential, any Error>?
        var recentRefreshes: [ContinuousClock.Instant] = []
        var refreshCount = 0
    }

    private let state: Locked<State>
    private let refresh: Refresh
    private let margin: Duration
    private let window: RefreshWindow

    /// Creates a store.
    ///
    /// - Parameters:
    ///   - credential: the credential to start with (`nil` until ``update(_:)`` after a login).
    ///   - refreshMargin: how long before expiry a credential counts as due.
    ///   - window: the refresh-loop limit.
    ///   - refresh: renews a credential.
    public init(
        credential: OAuthCredential? = nil,
        refreshMargin: Duration = .seconds(60),
        window: RefreshWindow = RefreshWindow(),
        refresh: @escaping Refresh
    ) {
        self.state = Locked(State(credential: credential))
        self.refresh = refresh
        self.margin = refreshMargin
        self.window = window
    }

    /// The current credential.
    public var credential: OAuthCredential? { state.withLock { $0.credential } }

    /// How many refreshes have started.
    public var refreshCount: Int { state.withLock { $0.refreshCount } }

    /// Replaces the credential (after a login); a refresh in flight will not overwrite it.
    public func update(_ credential: OAuthCredential?) {
        state.withLock { state in
            state.credential = credential
            state.generation += 1
            state.refreshing = nil
        }
    }

    /// Forgets the credential (logout); a refresh in flight will not bring it back.
    public func reset() { update(nil) }

    /// A credential fit to send: the current one, or a refreshed one when it is due.
    func validCredential() async throws(FaradayError) -> OAuthCredential {
        try await obtain(ifMissing: "There is no credential to send; log in first.") { credential, isRefreshing in
            !isRefreshing && !credential.needsRefresh(margin: margin)
        }
    }

    /// A credential to replace one the server rejected: the current one if a refresh already
    /// replaced it, else a refreshed one.
    func credential(replacing rejected: OAuthCredential) async throws(FaradayError) -> OAuthCredential {
        try await obtain(ifMissing: "The credential was cleared; log in again.") { credential, isRefreshing in
            !isRefreshing && credential != rejected
        }
    }

    private enum Next {
        case use(OAuthCredential)
        case await(Task<OAuthCredential, any Error>, generation: Int)
    }

    /// The current credential when `isUsable` says so (given it and whether a refresh is in
    /// flight), else the result of the refresh in flight or of a new one.
    private func obtain(
        ifMissing message: String,
        isUsable: (OAuthCredential, Bool) -> Bool
    ) async throws(FaradayError) -> OAuthCredential {
        let next = try state.withLock { state throws(FaradayError) -> Next in
            guard let credential = state.credential else { throw FaradayError(.authenticationFailed, message) }
            if isUsable(credential, state.refreshing != nil) { return .use(credential) }
            return .await(try startRefresh(&state, from: credential), generation: state.generation)
        }
        switch next {
        case .use(let credential): return credential
        case .await(let task, let generation): return try await finish(task, generation: generation)
        }
    }

    /// The refresh in flight, or a new one if the window allows it.
    private func startRefresh(
        _ state: inout State,
        from credential: OAuthCredential
    ) throws(FaradayError) -> Task<OAuthCredential, any Error> {
        if let refreshing = state.refreshing { return refreshing }
        let now = ContinuousClock.now
        state.recentRefreshes.removeAll { now - $0 > window.interval }
        guard state.recentRefreshes.count < window.maximumAttempts else {
            throw FaradayError(
                .authenticationFailed,
                "The credential was refreshed \(state.recentRefreshes.count) times within \(window.interval); refusing to refresh again (a refresh loop?)."
            )
        }
        state.recentRefreshes.append(now)
        state.refreshCount += 1
        let refresh = self.refresh
        let task = Task {
            try await TokenRefresh.$isRefreshing.withValue(true) { try await refresh(credential) }
        }
        state.refreshing = task
        return task
    }

    /// Waits for a refresh and stores its credential, unless the store was updated meanwhile.
    private func finish(
        _ task: Task<OAuthCredential, any Error>,
        generation: Int
    ) async throws(FaradayError) -> OAuthCredential {
        let result = await task.result
        state.withLock { state in
            if state.refreshing == task { state.refreshing = nil }
            if case .success(let credential) = result, state.generation == generation { state.credential = credential }
        }
        switch result {
        case .success(let credential): return credential
        case .failure(let error as FaradayError): throw error
        case .failure(let error):
            throw FaradayError(.authenticationFailed, "Refreshing the credential failed: \(error)", underlying: error)
        }
    }
}
