#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where ``HTTPCache`` keeps responses: ``MemoryCacheStore``, ``DiskCacheStore``, or your own.
///
/// A key is a URL (``CacheEntry/key(for:)``), followed, for a request with credentials, by a
/// keyed digest of them (so that users never share an entry); one key holds the variants of that
/// URL that differ by their `Vary` headers (``CacheEntry/varyingRequestHeaders``). A store is called from many
/// tasks at once, bounds its own size, and never fails a request: what it cannot read or write it
/// treats as absent.
public protocol CacheStore: Sendable {
    /// The variants stored under `key`, most recently stored first.
    func entries(for key: String) -> [CacheEntry]

    /// Stores `entry` under `key`, replacing the variant with the same
    /// ``CacheEntry/varyingRequestHeaders``.
    func store(_ entry: CacheEntry, for key: String)

    /// Starts storing a response whose body arrives in pieces as it streams; nothing is stored
    /// unless the writer is committed. The default collects the pieces in memory and calls
    /// ``store(_:for:)``; a store that can write as the body arrives (``DiskCacheStore``) returns
    /// its own, so that a large body is never held whole.
    func makeWriter(for key: String) -> any CacheEntryWriter

    /// Removes every variant under `key`.
    func removeEntries(for key: String)

    /// Removes everything.
    func removeAll()
}

extension CacheStore {
    /// Collects the body in memory, then calls ``store(_:for:)``.
    public func makeWriter(for key: String) -> any CacheEntryWriter {
        MemoryEntryWriter { [self] entry in store(entry, for: key) }
    }
}

/// Writes one entry into a ``CacheStore`` as its body arrives.
public protocol CacheEntryWriter: Sendable {
    /// Adds the next piece of the body.
    func append(_ piece: Data)

    /// Stores `entry` with the pieces appended as its body (`entry.body` is ignored).
    func commit(_ entry: CacheEntry)

    /// Forgets what was written: the body did not end whole, or it is not to be kept.
    func abandon()
}

/// The default writer: the pieces in memory, stored on commit.
struct MemoryEntryWriter: CacheEntryWriter {
    let store: @Sendable (CacheEntry) -> Void
    private let body = Locked(Data())

    init(store: @escaping @Sendable (CacheEntry) -> Void) { self.store = store }

    func append(_ piece: Data) { body.withLock { $0.append(piece) } }

    func commit(_ entry: CacheEntry) {
        var entry = entry
        entry.body = ResponseBody(body.snapshot)
        store(entry)
    }

    func abandon() { body.withLock { $0 = Data() } }
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
        var entry = entry
        if !entry.body.isInMemory {  // an entry of another store: kept here in memory
            guard let bytes = entry.body.bytes() else { return }
            entry.body = ResponseBody(bytes)
        }
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
