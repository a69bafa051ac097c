#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension HTTPCache {
    /// Fetches for a miss, one request for all the concurrent misses of `key` (`Flights`): the
    /// first call leads, the others wait for what it stores. The key holds the credentials'
    /// digest (`CachePartition`): two users never share a flight.
    func fetchOnce(
        _ env: Env,
        _ requestControl: CacheControl,
        key: String,
        entry: CacheEntry?,
        now: Date
    ) async throws(FaradayError) -> Completions {
        // Only a request that a stored response may answer waits for another's.
        guard handler.lockTimeout > .zero, !requestControl.noCache, requestControl.maxAge != 0 else {
            return try await fetch(env, requestControl, key: key, entry: entry)
        }
        let flights = handler.shared.flights
        switch flights.join(key, within: handler.lockTimeout) {
        case .leader(let flight):
            let completions: Completions
            do {
                completions = try await fetch(env, requestControl, key: key, entry: entry)
            } catch {
                flights.land(flight, key: key)
                throw error
            }
            // What will not be stored fresh answers no waiter: they go on at once. What will is
            // stored when the response ends (the store's hooks, added first, run first).
            guard isStoredFresh(completions.head, now: now) else {
                flights.land(flight, key: key)
                return completions
            }
            return completions.onComplete { env in
                if env.isFinal { flights.land(flight, key: key) }
            }.mapErrors { error in
                flights.land(flight, key: key)
                return error
            }
        case .waiter(let flight):
            try await flight.wait(limit: handler.lockTimeout, cancellation: env.cancellation)
            // What the leader stored answers when it may; otherwise this call asks for itself.
            let now = handler.now()
            let stored = await storedEntries(for: key).first { CachePolicy.matches($0, env.request, partition) }
            let whole = stored.flatMap { $0.isPartial ? nil : $0 }
            if let whole, handler.policy.use(of: whole, requestControl: requestControl, now: now) == .fresh,
                let hit = await serve(whole, env, .hit, now: now)
            {
                return hit
            }
            return try await fetch(env, requestControl, key: key, entry: whole)
        }
    }

    /// Whether a response from the server is being stored, and fresh for a plain request: the
    /// only answer worth waiting for.
    private func isStoredFresh(_ head: Env, now: Date) -> Bool {
        guard head[CacheStatusKey.self] == .miss, let response = head.response else { return false }
        let control = CacheControl(response.headers)
        return !control.noCache
            && handler.policy.freshnessLifetime(
                status: response.status.code,
                headers: response.headers,
                responseDate: now
            ) > 0
    }
}
