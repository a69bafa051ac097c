import Foundation
import HTTPTypes

/// A private HTTP cache (RFC 9111, with `stale-while-revalidate` and `stale-if-error` of
/// RFC 5861): answers from a ``CacheStore`` while a stored response is fresh, revalidates it
/// with a conditional request when it is stale, and stores what the server allows.
///
/// ```swift
/// let api = try Connection(url: "https://api.example.com") { builder in
///     builder.use(HTTPCache.Handler(store: DiskCacheStore(directory: cachesURL)))
///     builder.use(Retry.Handler())
///     builder.use(FollowRedirects.Handler())
/// }
/// let env = try await api.get("catalog").value
/// print(env.cacheStatus)  // .miss, then .hit while fresh, .revalidated after a 304…
/// ```
///
/// Put it above `Retry` and `FollowRedirects`, so that a hit costs no attempt and the stored
/// response is the final one of the call. Only `GET` responses are stored; an unsafe method that
/// succeeds (`POST`, `PUT`, `PATCH`, `DELETE`) removes the entries of its URL and of its
/// `Location` and `Content-Location` on the same origin. A request with its own
/// `If-None-Match` or `If-Modified-Since` passes through untouched. A response to a request with
/// `Authorization` is stored only when it is `public`, `must-revalidate` or has `s-maxage`
/// (RFC 9111 §3.5), and ``Connection/reset()`` empties the store.
public struct HTTPCache: Middleware {
    public let app: any App
    let handler: Handler

    /// Configures ``HTTPCache``.
    public struct Handler: Faraday.Handler, Resettable {
        /// Where responses are kept.
        public var store: any CacheStore
        /// The rules of freshness.
        var policy: CachePolicy
        /// The largest body stored; a larger response passes through and is not kept.
        public var maximumBodySize: Int
        /// The clock (a fixed one in tests).
        let now: @Sendable () -> Date
        let revalidations = BackgroundTasks()

        /// Creates a cache.
        ///
        /// - Parameters:
        ///   - store: where responses are kept (by default 10 MiB in memory).
        ///   - heuristicFraction: the share of `Date − Last-Modified` that a response without
        ///     explicit freshness stays fresh (RFC 9111 §4.2.2; 10 %).
        ///   - maximumHeuristicLifetime: the cap on that heuristic freshness (one day).
        ///   - maximumBodySize: the largest body stored (8 MiB).
        ///   - now: the clock.
        public init(
            store: any CacheStore = MemoryCacheStore(),
            heuristicFraction: Double = 0.1,
            maximumHeuristicLifetime: TimeInterval = 86_400,
            maximumBodySize: Int = 8 * 1024 * 1024,
            now: @escaping @Sendable () -> Date = { Date() }
        ) {
            self.store = store
            self.policy = CachePolicy(
                heuristicFraction: heuristicFraction,
                maximumHeuristicLifetime: maximumHeuristicLifetime
            )
            self.maximumBodySize = maximumBodySize
            self.now = now
        }

        public func build(app: any App) -> any App { HTTPCache(app: app, handler: self) }

        /// Empties the store (``Connection/reset()`` calls it on logout).
        public func reset() { store.removeAll() }

        /// Waits for the revalidations started in the background (`stale-while-revalidate`) to
        /// end: for tests, and before a process exits.
        public func waitForBackgroundRevalidations() async { await revalidations.waitForAll() }
    }

    public func call(_ env: Env) async throws -> Completions {
        let request = env.request
        let requestControl = CacheControl(request.headers, isRequest: true)
        guard request.method == .get else {
            let completions = try await app.call(env)
            if !Self.safeMethods.contains(request.method) { invalidate(after: request, completions.head.response) }
            return completions.marked(.uncacheable)
        }
        // The caller's own conditional request is theirs to answer.
        if request.headers[.ifNoneMatch] != nil || request.headers[.ifModifiedSince] != nil {
            return try await app.call(env).marked(.uncacheable)
        }
        let key = CacheEntry.key(for: request.url)
        let now = handler.now()
        let entry = handler.store.entries(for: key).first { CachePolicy.matches($0, request) }
        if let entry {
            switch handler.policy.use(of: entry, requestControl: requestControl, now: now) {
            case .fresh: return serve(entry, env, .hit, now: now)
            case .staleAllowed: return serve(entry, env, .stale, now: now)
            case .staleWhileRevalidate:
                let background = Env(request: request)  // the caller's cancellation is not its own
                handler.revalidations.run { try? await fetch(background, key: key, entry: entry).drain() }
                return serve(entry, env, .stale, now: now)
            case .validate: break
            }
        }
        if requestControl.onlyIfCached {
            var answer = env
            answer.response = ResponseData(status: .gatewayTimeout)
            answer[CacheStatusKey.self] = .miss
            return .buffered(answer)
        }
        return try await fetch(env, key: key, entry: entry)
    }

    private static let safeMethods: Set<HTTPRequest.Method> = [.get, .head, .options, .trace]

    /// Asks the server (conditionally when `entry` has a validator), and stores, updates or
    /// falls back to `entry` by its answer.
    private func fetch(_ env: Env, key: String, entry: CacheEntry?) async throws -> Completions {
        let requestControl = CacheControl(env.request.headers, isRequest: true)
        var attempt = env
        if let entry, let conditional = CachePolicy.conditional(env.request, for: entry) {
            attempt.request = conditional
        }
        let requestDate = handler.now()
        let completions: Completions
        do {
            completions = try await app.call(attempt)
        } catch {
            if let entry, handler.policy.mayServeOnError(entry, requestControl: requestControl, now: requestDate) {
                return serve(entry, env, .stale, now: requestDate)
            }
            throw error
        }
        guard let response = completions.head.response else { return completions }
        let responseDate = handler.now()
        if let entry, response.status.code == 304 {
            try await completions.drain()  // the layers below see their end
            let updated = CachePolicy.updated(
                entry,
                with: response.headers,
                requestDate: requestDate,
                responseDate: responseDate
            )
            handler.store.store(updated, for: key)
            return serve(updated, env, .revalidated, now: responseDate)
        }
        if let entry, [500, 502, 503, 504].contains(response.status.code),
            handler.policy.mayServeOnError(entry, requestControl: requestControl, now: responseDate)
        {
            try? await completions.drain()
            return serve(entry, env, .stale, now: responseDate)
        }
        let sent = completions.head.request  // with what the layers below added (Authorization…)
        if handler.policy.refusal(request: sent, requestControl: requestControl, response: response, now: responseDate)
            != nil
        {
            if CacheControl(response.headers).noStore { handler.store.removeEntries(for: key) }
            return completions.marked(.uncacheable)
        }
        let stored = CacheEntry(
            url: env.request.url,
            varyingRequestHeaders: CachePolicy.varyingHeaders(of: env.request, response: response.headers),
            status: response.status,
            headers: response.headers,
            body: Data(),
            requestDate: requestDate,
            responseDate: responseDate
        )
        let recorder = BodyRecorder(limit: handler.maximumBodySize)
        let store = handler.store
        return completions.transformBody(recorder).onComplete { env in
            env[CacheStatusKey.self] = .miss
            guard env.isFinal, let body = recorder.completeBody() else { return }
            var entry = stored
            entry.body = body
            store.store(entry, for: key)
        }
    }

    /// A stored response as the answer, with its current `Age`.
    private func serve(_ entry: CacheEntry, _ env: Env, _ status: CacheStatus, now: Date) -> Completions {
        var served = env
        var headers = entry.headers
        headers[.age] = String(Int(CachePolicy.age(of: entry, now: now).rounded(.down)))
        served.response = ResponseData(status: entry.status, headers: headers, body: entry.body)
        served[CacheStatusKey.self] = status
        return .buffered(served)
    }

    /// RFC 9111 §4.4: a successful unsafe request makes the stored responses of its URL (and of
    /// its `Location` and `Content-Location` on the same origin) out of date.
    private func invalidate(after request: Request, _ response: ResponseData?) {
        guard let response, (200..<400).contains(response.status.code) else { return }
        handler.store.removeEntries(for: CacheEntry.key(for: request.url))
        let origin = Origin(request.url)
        for name in [HTTPField.Name.location, .contentLocation] {
            guard let value = response.headers[name],
                let url = URL(string: value, relativeTo: request.url)?.absoluteURL,
                Origin(url) == origin
            else { continue }
            handler.store.removeEntries(for: CacheEntry.key(for: url))
        }
    }
}

/// What ``HTTPCache`` did for a call.
public enum CacheStatus: String, Sendable, Hashable {
    /// Answered from the store, fresh; the server was not asked.
    case hit
    /// Not in the store (or not usable): the server answered, and the answer was stored.
    case miss
    /// Stale in the store; the server answered `304 Not Modified` and the stored response was served.
    case revalidated
    /// Served stale: the request allowed it (`max-stale`), the server failed (`stale-if-error`), or
    /// it is being revalidated in the background (`stale-while-revalidate`).
    case stale
    /// The server answered and the answer may not be stored (or the method is not cached).
    case uncacheable
}

enum CacheStatusKey: EnvKey { typealias Value = CacheStatus }

extension Env {
    /// What ``HTTPCache`` did for this call; `nil` without the cache (or above it in the stack,
    /// before it answered).
    public var cacheStatus: CacheStatus? { self[CacheStatusKey.self] }
}

extension Completions {
    fileprivate func marked(_ status: CacheStatus) -> Completions {
        onComplete { $0[CacheStatusKey.self] = status }
    }

    /// Pulls every completion, so that the layers below see their end; for an answer the cache
    /// replaces (a 304, a failure it hides).
    fileprivate func drain() async throws {
        while try await next() != nil {}
    }
}

/// Keeps the bytes of a response body as it passes, up to a limit; the cache stores them when
/// the body has ended whole.
private final class BodyRecorder: BodyTransform {
    private struct State {
        var body = Data()
        var isTooLarge = false
        var isFinished = false
    }

    private let limit: Int
    private let state = Locked(State())

    init(limit: Int) { self.limit = limit }

    func transform(_ chunk: Data) throws(FaradayError) -> Data {
        state.withLock { state in
            guard !state.isTooLarge else { return }
            if state.body.count + chunk.count > limit {
                state.isTooLarge = true
                state.body = Data()
            } else {
                state.body.append(chunk)
            }
        }
        return chunk
    }

    func finish() throws(FaradayError) -> Data {
        state.withLock { $0.isFinished = true }
        return Data()
    }

    /// The whole body, or `nil` when it did not end or was too large.
    func completeBody() -> Data? {
        state.withLock { $0.isFinished && !$0.isTooLarge ? $0.body : nil }
    }
}

/// Tasks a middleware starts in the background, and a way to wait for them.
final class BackgroundTasks: Sendable {
    private struct State {
        var tasks: [UInt64: Task<Void, Never>] = [:]
        var lastID: UInt64 = 0
    }

    private let state = Locked(State())

    func run(_ work: @escaping @Sendable () async -> Void) {
        // Made under the lock, so that the task's own removal comes after its insertion.
        state.withLock { state in
            state.lastID += 1
            let id = state.lastID
            state.tasks[id] = Task {
                await work()
                self.state.withLock { _ = $0.tasks.removeValue(forKey: id) }
            }
        }
    }

    func waitForAll() async {
        while let task = state.withLock({ $0.tasks.first?.value }) { await task.value }
    }
}
