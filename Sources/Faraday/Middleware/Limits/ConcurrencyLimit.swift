#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// At most ``Handler/maximum`` calls of the connection in flight at once; the others wait their
/// turn in order (the throttle of "HTTP in Swift").
///
/// ```swift
/// builder.use(ConcurrencyLimit.Handler(maximum: 6))
/// ```
///
/// A call holds its place until its response is finished (the last frame of a stream), fails
/// or is cancelled. A call cancelled while it waits leaves the queue at once with
/// ``FaradayError/Code/cancelled``.
public struct ConcurrencyLimit: Middleware {
    /// The app below.
    public let app: any App
    /// The handler's settings.
    public let handler: Handler

    /// Builds ``ConcurrencyLimit``; one handler's calls share one limit.
    public struct Handler: Faraday.Handler {
        /// The most calls in flight.
        public let maximum: Int
        let permits: Permits

        /// Creates the handler.
        public init(maximum: Int) {
            self.maximum = max(1, maximum)
            self.permits = Permits(self.maximum)
        }

        /// Calls waiting for their turn now.
        public var waiting: Int { permits.waiting }

        public func build(app: any App) -> any Middleware { ConcurrencyLimit(app: app, handler: self) }
    }

    /// Waits for a place; the place is this layer's state for the call, so two limits in one
    /// stack (a library's and the application's) each keep their own.
    public func onRequest(_ env: inout Env) async throws -> Permit {
        try await handler.permits.acquire(env.cancellation)
        return Permit(handler.permits)
    }

    /// Gives the place back at the final completion.
    public func onComplete(_ env: inout Env, state permit: Permit) {
        if env.isFinal { permit.release() }
    }

    /// Gives the place back when the call fails after it got one.
    public func onError(_ error: FaradayError, env: Env, state permit: Permit?) {
        permit?.release()
    }
}

extension ConcurrencyLimit {
    /// One call's place in a ``ConcurrencyLimit``, given back once, at the call's end.
    public final class Permit: Sendable {
        private let permits: Permits
        private let released = Locked(false)

        init(_ permits: Permits) { self.permits = permits }

        func release() {
            if released.setFirst() { permits.release() }
        }
    }
}

/// A counting semaphore with a first-in, first-out queue whose waiters can be cancelled.
final class Permits: Sendable {
    private struct State {
        var available: Int
        var nextID = 0
        var waiters: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
        var cancelled: Set<Int> = []
    }

    private let state: Locked<State>

    init(_ count: Int) { state = Locked(State(available: count)) }

    var waiting: Int { state.withLock { $0.waiters.count } }

    func acquire(_ token: CancellationToken) async throws(FaradayError) {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        do {
            try await token.withCancellationHandler(
                {
                    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                        let granted = state.withLock { state -> Bool? in
                            if state.cancelled.remove(id) != nil { return nil }
                            if state.available > 0 && state.waiters.isEmpty {
                                state.available -= 1
                                return true
                            }
                            state.waiters.append((id, continuation))
                            return false
                        }
                        switch granted {
                        case true?: continuation.resume()
                        case nil: continuation.resume(throwing: CancellationError())
                        case false?: break
                        }
                    }
                },
                onCancel: { self.cancel(id) }
            )
            // A cancellation that raced with the grant left a mark nobody will read.
            state.withLock { _ = $0.cancelled.remove(id) }
        } catch {
            throw FaradayError(.cancelled, "The request was cancelled while waiting for its turn.")
        }
    }

    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard !state.waiters.isEmpty else {
                state.available += 1
                return nil
            }
            return state.waiters.removeFirst().continuation
        }
        next?.resume()
    }

    private func cancel(_ id: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                state.cancelled.insert(id)  // not queued yet (or already granted; then it is never read)
                return nil
            }
            return state.waiters.remove(at: index).continuation
        }
        waiter?.resume(throwing: CancellationError())
    }
}
