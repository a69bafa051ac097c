import Dispatch

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A ``DiskCacheStore``'s file work (writing entries, renaming them into place, removing and
/// trimming), run in order on a queue of its own, so that a call whose stack runs on an adapter's
/// event loop never waits for the disk.
///
/// The stores of one directory in a process share one queue (``forDirectory(_:)``), and reads
/// wait for the work queued before them (``drain()``), so that every store of the directory
/// answers what one of them was told to store. Queuing never blocks its caller's thread (which
/// can be an event loop); a body's reader keeps the bytes queued and not yet written bounded by
/// suspending in ``waitForRoom()`` while they are past ``maximumPendingBytes``, so that a disk
/// slower than the network holds back the call that fills it, not the thread it runs on.
package final class DiskWrites: Sendable {
    /// The most bytes of bodies queued for writing before a reader waits for room.
    static let maximumPendingBytes = 8 << 20

    private struct Pending {
        var operations = 0
        var bytes = 0
        /// Readers suspended in ``waitForRoom()``, by number, resumed once the bytes are back
        /// within bounds (or when their task is cancelled).
        var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
        var lastReader = 0
        var isOver: Bool { bytes > DiskWrites.maximumPendingBytes }
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

    /// Queues `work`, which writes `bytes` bytes of a body, and returns at once.
    func enqueue(bytes: Int = 0, _ work: @escaping @Sendable () -> Void) {
        pending.withLock { pending in
            pending.operations += 1
            pending.bytes += bytes
        }
        queue.async { [self] in
            beforeEach?()
            work()
            let room = pending.withLock { pending -> [CheckedContinuation<Void, Never>] in
                pending.operations -= 1
                pending.bytes -= bytes
                guard !pending.isOver, !pending.waiting.isEmpty else { return [] }
                defer { pending.waiting = [:] }
                return Array(pending.waiting.values)
            }
            for reader in room { reader.resume() }
        }
    }

    /// Returns once the bytes queued are within ``maximumPendingBytes``: at once when they are,
    /// else when the disk has caught up or the task is cancelled. It suspends the caller's task,
    /// never blocks its thread.
    func waitForRoom() async {
        let number = pending.withLock { pending -> Int? in
            guard pending.isOver else { return nil }
            pending.lastReader += 1
            return pending.lastReader
        }
        guard let number else { return }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (reader: CheckedContinuation<Void, Never>) in
                let hasRoom = pending.withLock { pending -> Bool in
                    guard pending.isOver, !Task.isCancelled else { return true }
                    pending.waiting[number] = reader
                    return false
                }
                if hasRoom { reader.resume() }
            }
        } onCancel: {
            pending.withLock { $0.waiting.removeValue(forKey: number) }?.resume()
        }
    }

    /// The bytes of bodies queued and not yet written.
    package var pendingBytes: Int { pending.withLock { $0.bytes } }

    /// The readers waiting in ``waitForRoom()``.
    package var waitingReaders: Int { pending.withLock { $0.waiting.count } }

    /// Waits for the work queued so far; returns at once when none is.
    func drain() {
        guard pending.withLock({ $0.operations > 0 }) else { return }
        queue.sync {}
    }
}
