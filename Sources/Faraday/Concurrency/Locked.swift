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
    private let storage: LockedBuffer<Value>

    /// Creates the lock around `value`.
    package init(_ value: Value) {
        storage = LockedBuffer.make(value)
    }

    /// Runs `body` with the value, the lock held.
    package func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try storage.withLock(body)
    }

    /// A copy of the value, read with the lock held.
    package var snapshot: Value { storage.withLock { $0 } }

    /// ``LockedBuffer/inDeinit(_:)``: for the deinit of this value's one owner, which never lets
    /// a copy of it out.
    package func inDeinit<Result>(_ body: (inout Value) -> Result) -> Result {
        storage.inDeinit(body)
    }
}

/// A value and the pthread mutex that guards it in one allocation: the value is the header of a
/// buffer whose one element is the mutex. ``Locked`` is the plain box; a type that needs a
/// `deinit` of its own (one that reports an end, say) subclasses it.
package class LockedBuffer<Value>: ManagedBuffer<Value, pthread_mutex_t> {
    /// A buffer of the class it is called on, holding `value`, its mutex initialised.
    package static func make(_ value: Value) -> Self {
        let buffer = unsafeDowncast(create(minimumCapacity: 1) { _ in value }, to: Self.self)
        buffer.withUnsafeMutablePointerToElements { mutex in
            let status = pthread_mutex_init(mutex, nil)
            precondition(status == 0, "pthread_mutex_init failed: \(status)")
        }
        return buffer
    }

    /// Runs `body` with the value, the lock held.
    package final func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try withUnsafeMutablePointers { value, mutex throws(Failure) in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }

    /// Runs `body` with the value without taking the lock: only in a deinit, of the buffer itself
    /// or of its one owner, where no other thread can reach the value.
    package final func inDeinit<Result>(_ body: (inout Value) -> Result) -> Result {
        withUnsafeMutablePointerToHeader { body(&$0.pointee) }
    }

    deinit {
        _ = withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) }
    }
}

extension Locked where Value == Int {
    /// Adds one and returns the new count (a sequence number, which call of a stub this is).
    package func increment() -> Int {
        withLock {
            $0 += 1
            return $0
        }
    }
}

extension Locked where Value == Bool {
    /// Sets the flag; `true` only for the call that found it unset, so that of several paths
    /// racing to settle something once (a timer and a write, two releases) the first one wins.
    package func setFirst() -> Bool {
        withLock { flag in
            defer { flag = true }
            return !flag
        }
    }
}

extension Locked {
    /// Sets the value to `first` unless one is set already; `true` only for the call that set it
    /// (of several causes racing to end something, the first one is the one kept).
    package func setFirst<Wrapped>(_ first: Wrapped) -> Bool where Value == Wrapped? {
        withLock { value in
            guard value == nil else { return false }
            value = first
            return true
        }
    }
}

extension LockedBuffer: CustomReflectable {
    /// Nothing of the guarded value: `dump` of a class that keeps its state in a lock (a cookie
    /// jar, a credential store, a connection's defaults) would otherwise show all of it, secrets
    /// included, and read it without the lock.
    package var customMirror: Mirror {
        Mirror(self, children: [:], displayStyle: .class, ancestorRepresentation: .suppressed)
    }
}
