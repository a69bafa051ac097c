import NIOConcurrencyHelpers
import NIOCore
import Synchronization

/// The places (connections open or opening) to each key across all of an adapter's loops, which
/// ``NIOAdapter/Configuration/maximumConnectionsPerHost`` bounds: one count shared by the loops,
/// as AsyncHTTPClient's pool keeps one.
///
/// It is touched when a connection opens or closes and while calls wait for a place, never when a
/// call reuses an idle connection of its loop: a release reads one atomic counter and takes the
/// lock only while some call waits. A call that waits on one loop while another loop keeps the
/// key's places idle does not wait for the idle timeout: that loop closes an idle connection and
/// the place moves to the waiting call's loop.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
final class HostPlaces: Sendable {
    private struct Places {
        /// Connections open or opening, on any loop (a place on its way to a waiting call too).
        var open = 0
        /// The loop of each call waiting for a place, in the order they came.
        var waiting = CircularBuffer<LoopPool>()
        /// Idle connections being closed to free a place for a waiting call.
        var closing = 0

        var isUnused: Bool { open == 0 && waiting.isEmpty && closing == 0 }
    }

    private struct WeakPool {
        weak var pool: LoopPool?
    }

    private let limit: Int
    private let places = NIOLockedValueBox([PoolKey: Places]())
    /// The calls waiting for a place, for every key; read without the lock on each release.
    private let waitingCalls = Atomic<Int>(0)
    /// Every loop's pool, asked to give up an idle connection when a call waits.
    private let pools = NIOLockedValueBox([WeakPool]())

    init(limit: Int) { self.limit = max(1, limit) }

    /// Names the pools to ask for idle connections; once, when the adapter has made them.
    func attach(_ pools: [LoopPool]) {
        self.pools.withLockedValue { $0 = pools.map(WeakPool.init) }
    }

    /// Takes a place to open a connection to `key` in, or, at the limit, queues a call of `pool`
    /// for the next place freed (and asks the other loops for an idle connection's place).
    /// Returns whether it took one.
    func take(_ key: PoolKey, orWaitOn pool: LoopPool) -> Bool {
        let taken = places.withLockedValue { places -> Bool in
            var entry = places[key] ?? Places()
            defer { places[key] = entry }
            guard entry.open >= limit else {
                entry.open += 1
                return true
            }
            entry.waiting.append(pool)
            return false
        }
        guard !taken else { return true }
        waitingCalls.add(1, ordering: .relaxed)
        for other in self.pools.withLockedValue({ $0.compactMap(\.pool) }) where other !== pool {
            other.loop.execute { other.closeIdle(key) }
        }
        return false
    }

    /// Whether an idle connection to `key` is to be closed, its place going to a waiting call;
    /// if so, it is counted as closing until ``free(_:claimed:)``.
    func claimIdle(_ key: PoolKey) -> Bool {
        guard waitingCalls.load(ordering: .relaxed) > 0 else { return false }
        return places.withLockedValue { places in
            guard var entry = places[key], entry.waiting.count > entry.closing else { return false }
            entry.closing += 1
            places[key] = entry
            return true
        }
    }

    /// A place of `key` is free: its connection closed or failed to open, or (`claimed`) was
    /// closed for a waiting call. The place goes to the first waiting call, on its loop
    /// (`LoopPool/placeGranted(_:)`), else back under the limit.
    func free(_ key: PoolKey, claimed: Bool = false) {
        let next = places.withLockedValue { places -> LoopPool? in
            guard var entry = places[key] else { return nil }
            if claimed { entry.closing -= 1 }
            let next = entry.waiting.popFirst()
            if next == nil { entry.open -= 1 }
            places[key] = entry.isUnused ? nil : entry
            return next
        }
        guard let next else { return }
        waitingCalls.subtract(1, ordering: .relaxed)
        next.loop.execute { next.placeGranted(key) }
    }

    /// A call of `pool` waiting for a place of `key` waits no more: its loop handed it a
    /// connection or a place, or it gave up.
    func withdraw(_ key: PoolKey, from pool: LoopPool) {
        let removed = places.withLockedValue { places -> Bool in
            guard var entry = places[key], let index = entry.waiting.firstIndex(where: { $0 === pool }) else {
                return false  // its entry is on its way to the loop as a place (`placeGranted`)
            }
            entry.waiting.remove(at: index)
            places[key] = entry.isUnused ? nil : entry
            return true
        }
        if removed { waitingCalls.subtract(1, ordering: .relaxed) }
    }
}
