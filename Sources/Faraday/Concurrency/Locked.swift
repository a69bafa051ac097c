#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value behind a lock: the one way Faraday shares mutable state between tasks and threads.
///
/// The value and a pthread mutex share one allocation (as NIO's `NIOLockedValueBox` does), and
/// copies of a `Locked` share them. Synchronization's `Mutex` would do the same job, but on Linux
/// it locks with futexes that ThreadSanitizer cannot see, so every access made under it is
/// reported as a race (`Scripts/tsan-mutex-repro.swift`); ThreadSanitizer sees pthread mutexes.
package struct Locked<Value>: @unchecked Sendable {
    // `@unchecked Sendable`: the value is only touched inside `withLock`, with the mutex held.
    private let storage: Storage

    /// Creates the lock around `value`.
    package init(_ value: Value) {
        storage = Storage.make(value)
    }

    /// Runs `body` with the value, the lock held.
    package func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try storage.withUnsafeMutablePointers { value, mutex throws(Failure) in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }

    /// The value as the header of a buffer whose one element is the mutex.
    private final class Storage: ManagedBuffer<Value, pthread_mutex_t> {
        static func make(_ value: Value) -> Storage {
            let buffer = Storage.create(minimumCapacity: 1) { _ in value }
            let storage = unsafeDowncast(buffer, to: Storage.self)
            storage.withUnsafeMutablePointerToElements { mutex in
                let status = pthread_mutex_init(mutex, nil)
                precondition(status == 0, "pthread_mutex_init failed: \(status)")
            }
            return storage
        }

        deinit {
            _ = withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) }
        }
    }
}
