import Foundation
import HTTPTypes

/// A private HTTP cache (RFC 9111, with `stale-while-revalidate` and `stale-if-error` of
/// RFC 5861): answers from a ``CacheStore`` while a stored response is fresh, revalidates it
/// with a conditional request when it is stale, and stores what the server allows.
///
/// ```swift
/// let api = try Connection(url: "https://api.example.com") { builder in
///     builder.use(FollowRedirects.Handler())
///     builder.use(HTTPCache.Handler(store: DiskCacheStore(directory: cachesURL)))
///     builder.use(Retry.Handler())
/// }
/// let env = try await api.get("catalog").value
/// print(env.cacheStatus)  // .miss, then .hit while fresh, .revalidated after a 304…
/// ```
///
/// Put it below `FollowRedirects` (each hop's answer is stored under its own URL) and above
/// `Retry` (a hit costs no attempt). Only `GET` responses are stored, when their body ends whole;
/// an unsafe method that succeeds (`POST`, `PUT`, `PATCH`, `DELETE`) removes the entries of its
/// URL and of its `Location` and `Content-Location` on the same origin. A request with its own
/// `If-None-Match`, `If-Modified-Since` or `Range` is answered from a fresh stored response (a
/// 304, a 206), and goes to the server otherwise. A response to a
/// request with `Authorization` is stored only when it is `public`, `must-revalidate` or has
/// `s-maxage` (RFC 9111 §3.5), and ``Connection/reset()`` empties the store. The DocC article
/// *Caching* has the rules.
public struct HTTPCache: Middleware {
    public let app: any App
    let handler: Handler

    /// Configures ``HTTPCache``.
    public struct Handler: Faraday.Handler {
        /// Where responses are kept.
        public var store: any CacheStore
        /// The rules of freshness.
        var policy: CachePolicy
        /// The largest body stored; a larger response passes through and is not kept.
        public var maximumBodySize: Int
        /// How long a request that misses waits for the same request already on its way (nginx's
        /// `proxy_cache_lock_timeout`): concurrent misses for one URL send one request, and the
        /// others are answered from what it stored. `.zero` sends every miss.
        public var lockTimeout: Duration
        /// The clock (a fixed one in tests).
        let now: @Sendable () -> Date
        let shared = Shared()

        /// Creates a cache.
        ///
        /// - Parameters:
        ///   - store: where responses are kept (by default 10 MiB in memory).
        ///   - heuristicFraction: the share of `Date − Last-Modified` that a response without
        ///     explicit freshness stays fresh (RFC 9111 §4.2.2; 10 %).
        ///   - maximumHeuristicLifetime: the cap on that heuristic freshness (one day).
        ///   - maximumBodySize: the largest body stored (8 MiB; raise it with a
        ///     ``DiskCacheStore`` to keep large downloads, which stream to disk).
        ///   - lockTimeout: how long a miss waits for the same request already on its way
        ///     (5 seconds); `.zero` sends every miss.
        ///   - now: the clock.
        public init(
            store: any CacheStore = MemoryCacheStore(),
            heuristicFraction: Double = 0.1,
            maximumHeuristicLifetime: TimeInterval = 86_400,
            maximumBodySize: Int = 8 * 1024 * 1024,
            lockTimeout: Duration = .seconds(5),
            now: @escaping @Sendable () -> Date = { Date() }
        ) {
            self.lockTimeout = lockTimeout
            self.store = store
            self.policy = CachePolicy(
                heuristicFraction: heuristicFraction,
                maximumHeuristicLifetime: maximumHeuristicLifetime
            )
            self.maximumBodySize = maximumBodySize
            self.now = now
        }

        public func build(app: any App) -> any Middleware { HTTPCache(app: app, handler: self) }

        /// Empties the store (``Connection/reset()`` calls it on logout) and stops the
        /// revalidations under way; what calls already in flight bring back is not stored.
        public func reset() {
            shared.generation.withLock { $0 += 1 }
            shared.revalidations.cancelAll()
            store.removeAll()
        }

        /// Waits for the revalidations started in the background (`stale-while-revalidate`) to
        /// end: for tests, and before a process exits.
        public func waitForBackgroundRevalidations() async { await shared.revalidations.waitForAll() }
    }

    /// What the copies of one handler share: the reset generation and the background work.
    final class Shared: Sendable {
        let generation = Locked(0)
        let revalidations = BackgroundTasks()
        let flights = Flights()
    }

    public func call(_ env: Env) async throws(FaradayError) -> Completions {
        let request = env.request
        let requestControl = CacheControl(request.headers, isRequest: true)
        guard request.method == .get else {
            let completions = try await app.call(env)
            if !Self.safeMethods.contains(request.method) { invalidate(after: request, completions.head.response) }
            return completions.marked(.uncacheable)
        }
        let key = CacheEntry.key(for: request.url)
        let now = handler.now()
        let entry = handler.store.entries(for: key).first { CachePolicy.matches($0, request) }
        if request.headers.contains(.ifNoneMatch) || request.headers.contains(.ifModifiedSince)
            || request.headers.contains(.range)
        {
            return try await answerOwnConditions(env, entry: entry, requestControl: requestControl, now: now)
        }
        if let entry {
            switch handler.policy.use(of: entry, requestControl: requestControl, now: now) {
            case .fresh: if let hit = serve(entry, env, .hit, now: now) { return hit }
            case .staleAllowed: if let stale = serve(entry, env, .stale, now: now) { return stale }
            case .staleWhileRevalidate:
                guard let stale = serve(entry, env, .stale, now: now) else { break }
                if !requestControl.onlyIfCached {
                    let background = Env(request: request)  // the caller's cancellation is not its own
                    let generation = handler.shared.generation.withLock { $0 }  // a reset from now on wins
                    handler.shared.revalidations.run(
                        key: key + "\n" + DiskCacheStore.describe(entry.varyingRequestHeaders)
                    ) {
                        try? await fetch(background, requestControl, key: key, entry: entry, generation: generation)
                            .drain()
                    }
                }
                return stale
            case .validate: break
            }
        }
        if requestControl.onlyIfCached {
            var answer = env
            answer.response = ResponseData(status: .gatewayTimeout)
            answer[CacheStatusKey.self] = .uncacheable
            return .buffered(answer)
        }
        return try await fetchOnce(env, requestControl, key: key, entry: entry, now: now)
    }

    private static let safeMethods: Set<HTTPRequest.Method> = [.get, .head, .options, .trace]

    /// Asks the server (conditionally when `entry` has a validator), and stores, updates or
    /// falls back to `entry` by its answer.
    func fetch(
        _ env: Env,
        _ requestControl: CacheControl,
        key: String,
        entry: CacheEntry?,
        generation: Int? = nil
    ) async throws(FaradayError) -> Completions {
        let generation = generation ?? handler.shared.generation.withLock { $0 }
        var attempt = env
        if let entry, let conditional = CachePolicy.conditional(env.request, for: entry) {
            attempt.request = conditional
        }
        let requestDate = handler.now()
        let completions: Completions
        do {
            completions = try await app.call(attempt)
        } catch {
            // A server that cannot be reached may be replaced by a stale answer; a caller who
            // left may not.
            if let entry, error.code != .cancelled, !env.isCancelled,
                handler.policy.mayServeOnError(entry, requestControl: requestControl, now: requestDate),
                let stale = serve(entry, env, .stale, now: requestDate)
            {
                return stale
            }
            throw error
        }
        let head = completions.head
        guard let response = head.response else { return completions }
        let responseDate = handler.now()
        if let entry, response.status.code == 304 {
            try? await completions.drain()  // the layers below see their end
            // §4.3.4: a 304 whose strong validator names another representation updates nothing.
            if let etag = response.headers[.eTag], !etag.hasPrefix("W/"), etag != entry.headers[.eTag] {
                handler.store.removeEntries(for: key)
                return try await fetch(env, requestControl, key: key, entry: nil, generation: generation)
            }
            let updated = CachePolicy.updated(
                entry,
                with: response.headers,
                requestDate: requestDate,
                responseDate: responseDate
            )
            if CacheControl(response.headers).noStore {
                handler.store.removeEntries(for: key)
            } else if generation == handler.shared.generation.withLock({ $0 }) {
                handler.store.store(updated, for: key)
            }
            // From the 304's env: what the layers below said of the exchange (Retry's attempt) stays.
            if let revalidated = serve(updated, head, .revalidated, now: responseDate) { return revalidated }
            // Its body went missing meanwhile: ask again.
            return try await fetch(env, requestControl, key: key, entry: nil, generation: generation)
        }
        if let entry, [500, 502, 503, 504].contains(response.status.code),
            handler.policy.mayServeOnError(entry, requestControl: requestControl, now: responseDate),
            let stale = serve(entry, head, .stale, now: responseDate)
        {
            try? await completions.drain()
            return stale
        }
        let refusal = handler.policy.refusal(
            request: head.request,  // as sent, with what the layers below added (Authorization…)
            requestControl: requestControl,
            response: response,
            now: responseDate
        )
        // Stored only as the answer of this URL (not a redirect's last hop) and of these values
        // of its Vary headers (none added below the cache).
        let varying = CachePolicy.varyingHeaders(of: env.request, response: response.headers)
        guard refusal == nil, CacheEntry.key(for: head.request.url) == key, let varying,
            varying == CachePolicy.varyingHeaders(of: head.request, response: response.headers)
        else {
            // A newer answer was seen (not a server error): what is stored for the URL is out of
            // date (§4.3.3).
            if entry != nil && response.status.code < 500 || CacheControl(response.headers).noStore {
                handler.store.removeEntries(for: key)
            }
            return completions.marked(.uncacheable)
        }
        if handler.store.entries(for: key).contains(where: { Set($0.varyingRequestHeaders.keys) != Set(varying.keys) })
        {
            handler.store.removeEntries(for: key)  // the URL varies on other headers now
        }
        let stored = CacheEntry(
            url: env.request.url,
            varyingRequestHeaders: varying,
            status: response.status,
            headers: CachePolicy.storable(response.headers),
            body: .empty,
            requestDate: requestDate,
            responseDate: responseDate
        )
        let recorder = BodyRecorder(writer: handler.store.makeWriter(for: key), limit: handler.maximumBodySize)
        let shared = handler.shared
        return completions.marked(.miss).transformBody(recorder).onComplete { env in
            guard env.isFinal else { return }
            recorder.finishCall(storing: stored, if: generation == shared.generation.withLock { $0 })
        }.mapErrors { error in
            recorder.abandon()
            return error
        }
    }

    /// A stored response as the answer, with its current `Age`; `nil` when its body cannot be
    /// read (its file was removed meanwhile).
    func serve(
        _ entry: CacheEntry,
        _ env: Env,
        _ status: CacheStatus,
        now: Date,
        notModified: Bool = false
    ) -> Completions? {
        var served = env
        var headers = entry.headers
        headers[.age] = String(Int(min(CachePolicy.age(of: entry, now: now).rounded(.down), Double(Int32.max))))
        served[CacheStatusKey.self] = status
        // A 304 to the caller's condition: the stored fields without the body's (RFC 9110 §15.4.5).
        if notModified {
            for name in [HTTPField.Name.contentLength, .contentEncoding, .contentRange, .transferEncoding] {
                headers[name] = nil
            }
            served.response = ResponseData(status: .notModified, headers: headers)
            return .buffered(served)
        }
        // A stored file is streamed a piece at a time to a streamed request, never read whole.
        if !entry.body.isInMemory && env.request.options.streaming != nil {
            served.response = ResponseData(status: entry.status, headers: headers)
            return .streamed(head: served, body: entry.body)
        }
        guard let body = entry.body.bytes() else { return nil }
        served.response = ResponseData(status: entry.status, headers: headers, body: body)
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

extension Completions {
    /// Says what the cache did, on the head (for the layers above that read it from `call`) and
    /// on every completion.
    func marked(_ status: CacheStatus) -> Completions {
        head[CacheStatusKey.self] = status
        return onComplete { $0[CacheStatusKey.self] = status }
    }

    /// Pulls every completion, so that the layers below see their end; for an answer the cache
    /// replaces (a 304, a failure it hides).
    fileprivate func drain() async throws(FaradayError) {
        while try await next() != nil {}
    }
}
