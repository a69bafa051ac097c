#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes one entry of a ``DiskCacheStore`` as its body arrives: into a temporary file, renamed
/// into place on commit; an entry that outgrows the store's capacity is dropped as it grows. The
/// file work runs on the store's ``DiskWrites`` queue, in the order it was asked for.
final class DiskEntryWriter: CacheEntryWriter {
    private struct State {
        var handle: OpenFile?
        var file: URL?
        var length = 0
        var isDone = false
    }

    let store: DiskCacheStore
    private let key: String
    /// Touched only on the store's queue; locked so that the type is plainly `Sendable`.
    private let state = Locked(State())

    init(store: DiskCacheStore, key: String) {
        self.store = store
        self.key = key
    }

    func append(_ piece: Data) {
        store.writes.enqueue(bytes: piece.count) { [self] in write(piece) }
    }

    func commit(_ entry: CacheEntry) {
        store.writes.enqueue { [self] in finish(entry) }
    }

    func abandon() {
        store.writes.enqueue { [self] in state.withLock { Self.drop(&$0) } }
    }

    /// Appends `piece` to the file (made on the first piece); on the store's queue.
    func write(_ piece: Data) {
        state.withLock { state in
            guard !state.isDone else { return }
            do {
                if state.handle == nil {
                    let file = try store.temporaryFile()
                    state.file = file
                    state.handle = try OpenFile(forWritingTo: file)
                    try state.handle?.write(contentsOf: DiskCacheStore.header(bodyLength: 0))
                }
                state.length += piece.count
                guard state.length <= store.capacity else { throw FaradayError(.bodyTooLarge, "over the capacity") }
                try state.handle?.write(contentsOf: piece)
            } catch {
                Self.drop(&state)
            }
        }
    }

    /// Writes the head after the body and moves the file into place; on the store's queue.
    func finish(_ entry: CacheEntry) {
        if state.withLock({ $0.handle == nil && !$0.isDone }) { write(Data()) }  // an empty body
        let written = state.withLock { state -> (URL, Int)? in
            guard !state.isDone, let handle = state.handle, let file = state.file,
                let head = DiskCacheStore.head(of: entry, key: key)
            else {
                Self.drop(&state)
                return nil
            }
            do {
                try handle.write(contentsOf: head)
                try handle.seek(toOffset: 0)
                try handle.write(contentsOf: DiskCacheStore.header(bodyLength: state.length))
                try handle.synchronize()
                try handle.close()
            } catch {
                Self.drop(&state)
                return nil
            }
            state.isDone = true
            return (file, DiskCacheStore.bodyOffset + state.length + head.count)
        }
        guard let (file, size) = written else { return }
        store.install(file, key: key, variant: entry.varyingRequestHeaders, size: size)
    }

    private static func drop(_ state: inout State) {
        try? state.handle?.close()
        if let file = state.file { try? FileManager.default.removeItem(at: file) }
        state = State(isDone: true)
    }
}
