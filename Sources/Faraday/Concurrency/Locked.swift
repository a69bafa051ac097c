import Foundation

/// A value behind a lock: the one way Faraday shares mutable state between tasks and threads.
///
/// Synchronization's `Mutex` does the same job, but on Linux it locks with futexes that
/// ThreadSanitizer cannot see, so every access made under it is reported as a race
/// (`Scripts/tsan-mutex-repro.swift`). `NSLock` is a pthread mutex, which ThreadSanitizer sees.
package final class Locked<Value>: @unchecked Sendable {
    // `@unchecked Sendable`: `value` is only touched inside `withLock`, with `lock` held.
    private var value: Value
    private let lock = NSLock()

    /// Creates the lock around `value`.
    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, the lock held.
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
