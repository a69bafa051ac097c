/// The progress observers of one call, and the throttle between the adapter's reports and them.
///
/// Made when a first observer subscribes (or when a layer starts an attempt), and shared by the
/// call's cancellation token and those of its attempts, so that an adapter several layers down
/// reaches the observers of the handle. A report is passed on when it is the first, a restart
/// (a new attempt counts from zero), the end of a known length, one percent of it further, or
/// 100 ms after the last one passed; a value held back is passed on when its 100 ms are over (if
/// none came after it), and a successful call ends
/// each direction that moved with one last value whose total is what was transferred.
final class ProgressHub: Sendable {
    enum Direction: CaseIterable {
        case upload, download
    }

    private struct Channel {
        var latest: TransferProgress?
        var passed: TransferProgress?
        var passedAt = ContinuousClock.now
        /// A held-back value will be passed on when the interval is over.
        var isFlushScheduled = false
        /// The observers, by the number they subscribed with.
        var subscribers: [Int: AsyncStream<TransferProgress>.Continuation] = [:]
    }

    private struct State {
        var upload = Channel()
        var download = Channel()
        var isEnded = false
        var nextSubscriber = 0

        subscript(direction: Direction) -> Channel {
            get { direction == .upload ? upload : download }
            set {
                if direction == .upload { upload = newValue } else { download = newValue }
            }
        }
    }

    static let interval = Duration.milliseconds(100)
    private let state = Locked(State())

    /// Takes an adapter's report. Values are yielded under the lock, so that observers see them
    /// in the order they were reported.
    func report(_ direction: Direction, _ progress: TransferProgress) {
        let flushAfter = state.withLock { state -> Duration? in
            guard !state.isEnded else { return nil }
            state[direction].latest = progress
            // Nobody listens to this direction (the hub was made for an attempt): keep the value
            // for an observer that comes later, and do nothing more.
            guard !state[direction].subscribers.isEmpty else { return nil }
            let channel = state[direction]
            let now = ContinuousClock.now
            guard Self.passes(progress, after: channel.passed, at: now - channel.passedAt) else {
                // Held back: passed on at the end of the interval if nothing newer passes first,
                // so that a transfer that stalls does not hide its last bytes.
                guard !channel.isFlushScheduled else { return nil }
                state[direction].isFlushScheduled = true
                return Self.interval - (now - channel.passedAt)
            }
            Self.pass(progress, direction, in: &state, at: now)
            return nil
        }
        if let flushAfter {
            Task {
                try? await Task.sleep(for: flushAfter)
                self.flush(direction)
            }
        }
    }

    /// Passes on the latest value of `direction` if it has not been.
    private func flush(_ direction: Direction) {
        state.withLock { state in
            state[direction].isFlushScheduled = false
            guard !state.isEnded, let latest = state[direction].latest, latest != state[direction].passed else {
                return
            }
            Self.pass(latest, direction, in: &state, at: .now)
        }
    }

    private static func pass(
        _ progress: TransferProgress,
        _ direction: Direction,
        in state: inout State,
        at now: ContinuousClock.Instant
    ) {
        state[direction].passed = progress
        state[direction].passedAt = now
        for subscriber in state[direction].subscribers.values { subscriber.yield(progress) }
    }

    private static func passes(
        _ progress: TransferProgress,
        after passed: TransferProgress?,
        at elapsed: Duration
    ) -> Bool {
        guard let passed else { return true }
        if progress == passed { return false }
        if progress.completedBytes < passed.completedBytes || elapsed >= interval { return true }
        guard let total = progress.totalBytes else { return false }
        return progress.completedBytes >= total || (progress.completedBytes - passed.completedBytes) * 100 >= total
    }

    /// A sequence of the values of `direction` from now on (the latest one reported first), which
    /// ends with the call.
    func subscribe(_ direction: Direction) -> AsyncStream<TransferProgress> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: TransferProgress.self,
            bufferingPolicy: .bufferingNewest(128)
        )
        let id = state.withLock { state -> Int? in
            if let latest = state[direction].latest { continuation.yield(latest) }
            guard !state.isEnded else { return nil }
            state.nextSubscriber += 1
            state[direction].subscribers[state.nextSubscriber] = continuation
            return state.nextSubscriber
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        // An observer that stops listening (its task cancelled) is forgotten at once.
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0[direction].subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// The observers of `direction` still listening (for tests).
    func subscriberCount(_ direction: Direction) -> Int { state.withLock { $0[direction].subscribers.count } }

    /// Ends every sequence; after a successful call, first passes on each direction's last value
    /// with its total set to what was transferred.
    func finish(success: Bool) {
        let subscribers = state.withLock { state -> [AsyncStream<TransferProgress>.Continuation] in
            guard !state.isEnded else { return [] }
            state.isEnded = true
            var all: [AsyncStream<TransferProgress>.Continuation] = []
            for direction in Direction.allCases {
                let channel = state[direction]
                if success, var last = channel.latest {
                    last.totalBytes = last.completedBytes
                    state[direction].latest = last
                    state[direction].passed = last
                    if last != channel.passed {
                        for subscriber in channel.subscribers.values { subscriber.yield(last) }
                    }
                }
                all += channel.subscribers.values
                state[direction].subscribers = [:]
            }
            return all
        }
        for subscriber in subscribers { subscriber.finish() }
    }
}
