import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An HTTP cache (RFC 9111, with `stale-while-revalidate` and `stale-if-error` of RFC 5861):
/// answers from a ``CacheStore`` while a stored response is fresh, revalidates it with a
/// conditional request when it is stale, and stores what the server allows.
///
/// ```swift
/// let store = try DiskCacheStore(directory: userCachesFolder.appending(path: "api-cache"))
/// let api = try Connection(url: "https://api.example.com") { builder in
///     builder.use(FollowRedirects.Handler())
///     builder.use(HTTPCache.Handler(store: store))
///     builder.use(Retry.Handler())
/// }
/// let env = try await api.get("catalog").value
/// print(env.cacheStatus)  // .miss, then .hit while fresh, .revalidated after a 304…
/// ```
///
/// Put it below `FollowRedirects` (each hop's answer is stored under its own URL) and above
/// `Retry` (a hit costs no attempt). `GET` responses are stored when their body ends whole, and a
/// `POST`'s when it has explicit freshness and its own URL as `Content-Location`; a `HEAD` is
/// answered from a fresh stored `GET` response, and its 200 updates a stale one. An unsafe method
/// that succeeds (`POST`, `PUT`, `PATCH`, `DELETE`) removes the entries of its URL and of its
/// `Location` and `Content-Location` on the same origin. A request with `no-store` passes by the
/// cache. A request with its own
/// `If-None-Match`, `If-Modified-Since` or `Range` is answered from a fresh stored response (a
/// 304, a 206), and goes to the server otherwise.
///
/// One cache may serve many users (an app server calling an API for each of its users through
/// one `Connection`): a request's credentials (`Authorization`, `Proxy-Authorization`, `Cookie`
/// and ``Handler/additionalCredentialFields``) are part of the key of what it stores and of the
/// request it may wait for, so that a stored response answers only requests with the same
/// credentials, and a response to a request with credentials is stored only when it says a
/// shared cache may (``Handler/isSharedByUsers``). `Set-Cookie` is never stored: the caller gets
/// it from the server's answer only. ``Connection/reset()`` empties the store. The DocC article
/// *Caching* has the rules.
public struct HTTPCache: Middleware {
    public let app: any App
    let handler: Handler
    /// How the users of this cache are told apart.
    let partition: CachePartition

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
        /// Request fields that, besides `Authorization`, `Proxy-Authorization` and `Cookie`, say
        /// who the user is (an `X-API-Key`). A request's values of all these fields are part of
        /// the key of what it stores and of the request it may wait for (as a keyed digest, never
        /// as they are), so that a stored response answers only requests with the same values;
        /// and a response to a request with any of them is stored as one to a request with
        /// `Authorization` (``isSharedByUsers``).
        public var additionalCredentialFields: [HTTPField.Name]
        /// Whether the cache serves several users, each with credentials of their own: `true`
        /// by default, as for an app server that calls an API on behalf of its users through one
        /// `Connection`. A response to a request with credentials is then stored only as a shared
        /// cache may store it (RFC 9111 §3.5): when it says `public`, `must-revalidate` or
        /// `s-maxage`, and never when it says `private`, whatever else it says.
        ///
        /// Set it to `false` when every request comes from one user (an app on a phone or a
        /// desktop, a command-line tool): the cache is then a private one, which stores a
        /// `private` response too, and a response to a request with a `Cookie` or another of
        /// ``additionalCredentialFields`` as any other (one to a request with `Authorization`
        /// still needs `public`, `must-revalidate` or `s-maxage`). Either way, a stored response
        /// answers only requests with the same credentials.
        public var isSharedByUsers: Bool
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
        ///   - additionalCredentialFields: request fields that, besides `Authorization`,
        ///     `Proxy-Authorization` and `Cookie`, say who the user is (none).
        ///   - isSharedByUsers: whether the cache serves several users (`true`): then a
        ///     `private` response to a request with credentials is never stored.
        ///   - now: the clock.
        public init(
            store: any CacheStore = MemoryCacheStore(),
            heuristicFraction: Double = 0.1,
            maximumHeuristicLifetime: TimeInterval = 86_400,
            maximumBodySize: Int = 8 * 1024 * 1024,
            lockTimeout: Duration = .seconds(5),
            additionalCredentialFields: [HTTPField.Name] = [],
            isSharedByUsers: Bool = true,
            now: @escaping @Sendable () -> Date = { Date() }
        ) {
            self.lockTimeout = lockTimeout
            self.additionalCredentialFields = additionalCredentialFields
            self.isSharedByUsers = isSharedByUsers
            self.store = store
            self.policy = CachePolicy(
                heuristicFraction: heuristicFraction,
                maximumHeuristicLifetime: maximumHeuristicLifetime
            )
            self.maximumBodySize = maximumBodySize
            self.now = now
        }

        public func build(app: any App) -> any Middleware {
            // A store on disk digests credentials under its own key, so that its entries
            // outlive the process; any other under the process's.
            let key = (store as? DiskCacheStore)?.credentialKey ?? CachePartition.processKey
            return HTTPCache(
                app: app,
                handler: self,
                partition: CachePartition(additionalFields: additionalCredentialFields, key: key)
            )
        }

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

    /// The store's entries for `key`; a store on disk is read off an adapter's event loop
    /// (``Offload``), since its files are read with blocking calls.
    func storedEntries(for key: String) async -> [CacheEntry] {
        let store = handler.store
        guard !(store is MemoryCacheStore) else { return store.entries(for: key) }
        return await Offload.run { store.entries(for: key) }
    }

    public func call(_ env: Env) async throws(FaradayError) -> Completions {
        let request = env.request
        let requestControl = CacheControl(request.headers, isRequest: true)
        if request.method != .get && request.method != .head { return try await unsafe(env, requestControl) }
        // §5.2.1.5: nothing of this exchange is stored; nor is it answered from the store, as
        // fetch's `cache: "no-store"` and a caller who says so mean.
        if requestControl.noStore { return try await app.call(env).marked(.uncacheable) }
        if request.method == .head { return try await head(env, requestControl) }
        let key = partition.key(for: request)
        let now = handler.now()
        let entry = await storedEntries(for: key).first { CachePolicy.matches($0, request, partition) }
        if request.headers.contains(.ifNoneMatch) || request.headers.contains(.ifModifiedSince)
            || request.headers.contains(.range)
        {
            return try await answerOwnConditions(env, entry: entry, requestControl: requestControl, now: now)
        }
        // A part stored: the rest is asked for (never with only-if-cached, which gets a 504).
        if let entry, entry.isPartial, !requestControl.onlyIfCached {
            return try await resume(env, requestControl, key: key, part: entry)
        }
        if let entry, !entry.isPartial {
            switch handler.policy.use(of: entry, requestControl: requestControl, now: now) {
            case .fresh: if let hit = await serve(entry, env, .hit, now: now) { return hit }
            case .staleAllowed: if let stale = await serve(entry, env, .stale, now: now) { return stale }
            case .staleWhileRevalidate:
                guard let stale = await serve(entry, env, .stale, now: now) else { break }
                if !requestControl.onlyIfCached {
                    let background = Env(request: request)  // the caller's cancellation is not its own
                    let generation = handler.shared.generation.snapshot  // a reset from now on wins
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
        if requestControl.onlyIfCached { return Self.notStored(env) }
        return try await fetchOnce(env, requestControl, key: key, entry: entry, now: now)
    }

    /// Asks the server (conditionally when `entry` has a validator), and stores, updates or
    /// falls back to `entry` by its answer.
    func fetch(
        _ env: Env,
        _ requestControl: CacheControl,
        key: String,
        entry: CacheEntry?,
        generation: Int? = nil
    ) async throws(FaradayError) -> Completions {
        let generation = generation ?? handler.shared.generation.snapshot
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
                let stale = await serve(entry, env, .stale, now: requestDate)
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
            if CachePolicy.forbiddenToStore(CacheControl(response.headers), status: entry.status.code) != nil {
                handler.store.removeEntries(for: key)
            } else if generation == handler.shared.generation.withLock({ $0 }) {
                handler.store.store(updated, for: key)
            }
            // From the 304's env: what the layers below said of the exchange (Retry's attempt) and
            // its cookies stay.
            if let revalidated = await serve(
                updated,
                head,
                .revalidated,
                now: responseDate,
                setting: CachePolicy.cookieFields(of: response.headers)
            ) {
                return revalidated
            }
            // Its body went missing meanwhile: ask again.
            return try await fetch(env, requestControl, key: key, entry: nil, generation: generation)
        }
        if let entry, [500, 502, 503, 504].contains(response.status.code),
            handler.policy.mayServeOnError(entry, requestControl: requestControl, now: responseDate),
            let stale = await serve(entry, head, .stale, now: responseDate)
        {
            try? await completions.drain()
            return stale
        }
        return await record(
            completions,
            for: env,
            requestControl,
            key: key,
            replacing: entry,
            requestDate: requestDate,
            responseDate: responseDate,
            generation: generation
        )
    }

    /// The answer to `only-if-cached` when nothing stored may answer: `504 Gateway Timeout`
    /// (RFC 9111 §5.2.1.7).
    static func notStored(_ env: Env) -> Completions {
        var answer = env
        answer.response = ResponseData(status: .gatewayTimeout)
        answer[CacheStatusKey.self] = .uncacheable
        return .buffered(answer)
    }

    /// How a stored response answers.
    enum ServedForm {
        /// Status, fields and body.
        case whole
        /// A 304 to the caller's own condition.
        case notModified
        /// The answer to a `HEAD`: status and fields.
        case head
    }

    /// A stored response as the answer, with its current `Age`; `nil` when its body cannot be
    /// read (its file was removed meanwhile). A stored `Set-Cookie` (from a store written by an
    /// earlier version, or by hand) is never served; `cookies` are those of the server's answer
    /// that revalidated it.
    func serve(
        _ entry: CacheEntry,
        _ env: Env,
        _ status: CacheStatus,
        now: Date,
        as form: ServedForm = .whole,
        setting cookies: [HTTPField] = []
    ) async -> Completions? {
        var served = env
        var headers = entry.headers
        let isCookie = { (field: HTTPField) in CachePolicy.cookieFieldNames.contains(field.name.canonicalName) }
        if !cookies.isEmpty || headers.contains(where: isCookie) {
            headers = HTTPFields(headers.filter { !isCookie($0) })
            headers.append(contentsOf: cookies)
        }
        headers[.age] = String(Int(min(CachePolicy.age(of: entry, now: now).rounded(.down), Double(Int32.max))))
        served[CacheStatusKey.self] = status
        switch form {
        case .whole: break
        case .notModified:
            // The stored fields without the body's (RFC 9110 §15.4.5).
            for name in [HTTPField.Name.contentLength, .contentEncoding, .contentRange, .transferEncoding] {
                headers[name] = nil
            }
            served.response = ResponseData(status: .notModified, headers: headers)
            return .buffered(served)
        case .head:
            served.response = ResponseData(status: entry.status, headers: headers)
            return .buffered(served)
        }
        // A stored file is streamed a piece at a time to a streamed request, never read whole.
        if !entry.body.isInMemory && env.request.options.streaming != nil {
            served.response = ResponseData(status: entry.status, headers: headers)
            return .streamed(head: served, body: entry.body)
        }
        // A stored file is read with blocking calls: off an adapter's event loop.
        guard let body = entry.body.isInMemory ? entry.body.bytes() : await Offload.run({ entry.body.bytes() })
        else { return nil }
        served.response = ResponseData(status: entry.status, headers: headers, body: body)
        return .buffered(served)
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
    func drain() async throws(FaradayError) {
        while try await next() != nil {}
    }
}
