/// Cancellation shared by every layer of one call: the user's handle, the middleware and the adapter.
///
/// Adapters register a handler that stops their transfer; ``cancel()`` runs every handler once.
/// Copies of a token are the same token. The token also carries the call's progress observers
/// (``Env/reportProgress(sent:of:)``), since it is the one thing every env of a call and the handle share.
public struct CancellationToken: @unchecked Sendable {
    // `@unchecked Sendable`: copies share `state`, which is only touched under its lock.
    private struct State {
        var isCancelled = false
        var nextID = 0
        var handlers: [Int: @Sendable () -> Void] = [:]
        var progress = Progress.unobserved
        /// The call's number, once a layer asked for it (``callID``).
        var callID: Int?
        /// For an attempt's token, the call's: its number is the call's, given there. Weak: the
        /// call's token holds its attempts' (to cancel them), and must not be held back by them.
        weak var call: LockedBuffer<State>?
    }

    /// The last call number given out in this process.
    private static let lastCallID = Locked(0)

    /// The progress observers of the call.
    private enum Progress {
        /// Nobody observes, and no attempt shares them yet: reports cost nothing more.
        case unobserved
        case observed(ProgressHub)
        /// The call has ended, and nobody observed it.
        case ended
    }

    private let state: LockedBuffer<State>

    /// Creates a token that is not cancelled.
    public init() {
        state = LockedBuffer.make(State())
    }

    /// `true` once ``cancel()`` has been called.
    public var isCancelled: Bool { state.withLock { $0.isCancelled } }

    /// Cancels the call and runs the registered handlers (once; later calls do nothing).
    public func cancel() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.isCancelled else { return [] }
            state.isCancelled = true
            defer { state.handlers = [:] }
            return state.handlers.sorted { $0.key < $1.key }.map(\.value)
        }
        for handler in handlers { handler() }
    }

    /// A registered cancellation handler; pass it to ``removeHandler(_:)`` when the work it stops is over.
    struct Registration: Sendable {
        fileprivate let id: Int
    }

    /// Registers `handler` to run when the call is cancelled. If it already is, runs `handler` at
    /// once and returns `nil`.
    @discardableResult
    func onCancel(_ handler: @escaping @Sendable () -> Void) -> Registration? {
        let id = state.withLock { state -> Int? in
            guard !state.isCancelled else { return nil }
            state.nextID += 1
            state.handlers[state.nextID] = handler
            return state.nextID
        }
        guard let id else {
            handler()
            return nil
        }
        return Registration(id: id)
    }

    /// Removes a handler that has not run yet.
    func removeHandler(_ registration: Registration?) {
        guard let registration else { return }
        _ = state.withLock { $0.handlers.removeValue(forKey: registration.id) }
    }

    /// Runs `operation`; if this token or the current task is cancelled meanwhile, runs `onCancel`
    /// (at once if the token is already cancelled).
    public func withCancellationHandler<T>(
        _ operation: () async throws -> T,
        onCancel: @escaping @Sendable () -> Void
    ) async rethrows -> T {
        let registration = self.onCancel(onCancel)
        defer { removeHandler(registration) }
        return try await withTaskCancellationHandler(operation: operation, onCancel: onCancel)
    }

    /// A token cancelled with this one, that can also be cancelled alone.
    ///
    /// Unless `sharesProgress` is `false`, the attempt's adapter reports to the call's progress
    /// observers, those that come later included.
    func child(sharesProgress: Bool = true) -> CancellationToken {
        let child = CancellationToken()
        onCancel { child.cancel() }
        // An attempt is the same call: it asks the call's token for the number, if anyone asks.
        guard sharesProgress else {
            child.state.withLock { $0.call = state }
            return child
        }
        let progress = state.withLock { state -> Progress in
            if case .unobserved = state.progress { state.progress = .observed(ProgressHub()) }
            return state.progress
        }
        child.state.withLock {
            $0.progress = progress
            $0.call = state
        }
        return child
    }

    /// The call's number in this process (from 1), given on first use and shared by its attempts:
    /// what tells the log lines and events of one call from another's.
    var callID: Int { Self.callID(of: state) }

    private static func callID(of token: LockedBuffer<State>) -> Int {
        if let call = token.withLock({ $0.call }) { return callID(of: call) }
        return token.withLock { state in
            if let id = state.callID { return id }
            let id = lastCallID.increment()
            state.callID = id
            return id
        }
    }

    // MARK: Progress

    /// The observers reports go to; `nil` when nobody observes, or when this call or attempt was
    /// cancelled (a discarded attempt's late reports would make the progress jump).
    var progressHub: ProgressHub? {
        state.withLock { state in
            if !state.isCancelled, case .observed(let hub) = state.progress { return hub }
            return nil
        }
    }

    /// The values of `direction` from now on; a sequence that ends at once when the call has ended
    /// without anyone observing it.
    func subscribeToProgress(_ direction: ProgressHub.Direction) -> AsyncStream<TransferProgress> {
        let hub = state.withLock { state -> ProgressHub? in
            switch state.progress {
            case .observed(let hub): return hub
            case .ended: return nil
            case .unobserved:
                let hub = ProgressHub()
                state.progress = .observed(hub)
                return hub
            }
        }
        guard let hub else { return AsyncStream { $0.finish() } }
        return hub.subscribe(direction)
    }

    /// Ends the progress sequences of the call.
    func endProgress(success: Bool) {
        let hub = state.withLock { state -> ProgressHub? in
            // An ended hub stays: an observer that comes later gets its last values.
            if case .observed(let hub) = state.progress { return hub }
            state.progress = .ended
            return nil
        }
        hub?.finish(success: success)
    }

    /// Throws ``FaradayError/Code/cancelled`` if this token or the current task is cancelled.
    public func check() throws(FaradayError) {
        if isCancelled || Task.isCancelled {
            throw FaradayError(.cancelled, "The request was cancelled.")
        }
    }
}
