import Dispatch
import Foundation

/// A ``DiskCacheStore``'s file work (writing entries, renaming them into place, removing and
/// trimming), run in order on a queue of its own, so that a call whose stack runs on an adapter's
/// event loop never waits for the disk.
///
/// The stores of one directory in a process share one queue (``forDirectory(_:)``), and reads
/// wait for the work queued before them (``drain()``), so that every store of the directory
/// answers what one of them was told to store. Bytes queued and not yet written are bounded: past
/// ``maximumPendingBytes``, ``enqueue(bytes:_:)`` waits for the disk to catch up instead of
/// holding a body in memory faster than it can be written.
final class DiskWrites: Sendable {
    /// The most bytes of bodies queued for writing before the caller waits.
    static let maximumPendingBytes = 8 << 20

    private struct Pending {
        var operations = 0
        var bytes = 0
    }

    private let queue = DispatchQueue(label: "Faraday.DiskCacheStore.writes")
    private let pending = Locked(Pending())
    /// Called on the queue before each piece of file work: lets a test stand in for a slow disk.
    let beforeEach: (@Sendable () -> Void)?

    init(beforeEach: (@Sendable () -> Void)? = nil) { self.beforeEach = beforeEach }

    /// The queue of the stores of `directory` in this process, made when none is alive.
    static func forDirectory(_ directory: String) -> DiskWrites {
        _ = drainedAtExit
        return live.withLock { live in
            if let writes = live[directory]?.writes { return writes }
            live = live.filter { $0.value.writes != nil }  // the directories no store uses any more
            let writes = DiskWrites()
            live[directory] = Weak(writes: writes)
            return writes
        }
    }

    private struct Weak {
        weak var writes: DiskWrites?
    }

    private static let live = Locked([String: Weak]())

    /// Registered once: the work queued when the process exits is finished first, so that the
    /// last entries of a program that returns from `main` are in place.
    private static let drainedAtExit: Void = {
        atexit {
            let alive = DiskWrites.live.withLock { $0.values.compactMap(\.writes) }
            for writes in alive { writes.drain() }
        }
    }()

    /// Queues `work`, which writes `bytes` bytes of a body; when that takes the bytes pending past
    /// ``maximumPendingBytes``, waits for the queue, in the caller's thread: a disk slower than
    /// the network holds up the writer (on an event loop, that loop) rather than fill memory.
    func enqueue(bytes: Int = 0, _ work: @escaping @Sendable () -> Void) {
        let isOver = pending.withLock { pending in
            pending.operations += 1
            pending.bytes += bytes
            return bytes > 0 && pending.bytes > Self.maximumPendingBytes
        }
        queue.async { [self] in
            beforeEach?()
            work()
            pending.withLock {
                $0.operations -= 1
                $0.bytes -= bytes
            }
        }
        if isOver { drain() }
    }

    /// The bytes of bodies queued and not yet written.
    var pendingBytes: Int { pending.withLock { $0.bytes } }

    /// Waits for the work queued so far; returns at once when none is.
    func drain() {
        guard pending.withLock({ $0.operations > 0 }) else { return }
        queue.sync {}
    }
}
