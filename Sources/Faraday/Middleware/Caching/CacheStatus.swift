/// What ``HTTPCache`` did for a call.
public enum CacheStatus: String, Sendable, Hashable {
    /// Answered from the store, fresh; the server was not asked.
    case hit
    /// Not in the store (or not usable): the server answered with a storable response, which is
    /// stored when its body ends whole (and is not larger than ``HTTPCache/Handler/maximumBodySize``).
    case miss
    /// Stale in the store; the server answered `304 Not Modified` and the stored response was served.
    case revalidated
    /// Part of the body was in the store: the rest was asked for with `Range` and `If-Range`, and
    /// the whole was served (and stored whole when its body ended).
    case resumed
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
