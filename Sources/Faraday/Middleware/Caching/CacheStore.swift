import Foundation

/// Where ``HTTPCache`` keeps responses: ``MemoryCacheStore``, ``DiskCacheStore``, or your own.
///
/// A key is a URL (``CacheEntry/key(for:)``); one key holds the variants of that URL that differ by
/// their `Vary` headers (``CacheEntry/varyingRequestHeaders``). A store is called from many
/// tasks at once, bounds its own size, and never fails a request: what it cannot read or write it
/// treats as absent.
public protocol CacheStore: Sendable {
    /// The variants stored under `key`, most recently stored first.
    func entries(for key: String) -> [CacheEntry]

    /// Stores `entry` under `key`, replacing the variant with the same
    /// ``CacheEntry/varyingRequestHeaders``.
    func store(_ entry: CacheEntry, for key: String)

    /// Removes every variant under `key`.
    func removeEntries(for key: String)

    /// Removes everything.
    func removeAll()
}

/// A ``CacheStore`` in memory, bounded by bytes: the least recently used entries go first.
public final class MemoryCacheStore: CacheStore {
    private struct State {
        var variants: [String: [CacheEntry]] = [:]
        var lastUse: [String: Int] = [:]
        var clock = 0
        var size = 0
    }

    /// The most bytes (bodies, headers and a small overhead per entry) the store keeps.
    public let capacity: Int
    private let state = Locked(State())

    /// Creates a store that keeps at most `capacity` bytes (10 MiB by default). An entry larger
    /// than an eighth of the capacity is not kept.
    public init(capacity: Int = 10 * 1024 * 1024) {
        self.capacity = capacity
    }

    /// The bytes the store holds now.
    public var size: Int { state.withLock { $0.size } }

    public func entries(for key: String) -> [CacheEntry] {
        state.withLock { state in
            guard let entries = state.variants[key] else { return [] }
            state.clock += 1
            state.lastUse[key] = state.clock
            return entries
        }
    }

    public func store(_ entry: CacheEntry, for key: String) {
        guard entry.size <= capacity / 8 else {
            removeEntries(for: key)
            return
        }
        state.withLock { state in
            var entries = state.variants[key] ?? []
            if let index = entries.firstIndex(where: { $0.varyingRequestHeaders == entry.varyingRequestHeaders }) {
                state.size -= entries.remove(at: index).size
            }
            entries.insert(entry, at: 0)
            state.size += entry.size
            state.variants[key] = entries
            state.clock += 1
            state.lastUse[key] = state.clock
            while state.size > capacity, let oldest = state.lastUse.min(by: { $0.value < $1.value })?.key {
                Self.remove(oldest, from: &state)
            }
        }
    }

    public func removeEntries(for key: String) {
        state.withLock { Self.remove(key, from: &$0) }
    }

    public func removeAll() {
        state.withLock { $0 = State() }
    }

    private static func remove(_ key: String, from state: inout State) {
        guard let entries = state.variants.removeValue(forKey: key) else { return }
        state.lastUse[key] = nil
        state.size -= entries.reduce(0) { $0 + $1.size }
    }
}
