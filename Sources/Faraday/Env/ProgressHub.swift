/// The progress observers of one call, and the throttle between the adapter's reports and them.
///
/// Made when a first observer subscribes (or when a layer starts an attempt), and shared by the
/// call's cancellation token and those of its attempts, so that an adapter several layers down
/// reaches the observers of the handle. A report is passed on when it is the first, a restart
/// (a new attempt counts from zero), the end of a known length, one percent of it further, or
/// 100 ms after the last one passed; the latest value is always kept, and a successful call ends
/// each direction that moved with one last value whose total is what was transferred.
final class ProgressHub: Sendable {
    enum Direction: CaseIterable {
        case upload, download
    }

    private struct Channel {
        var latest: TransferProgress?
        var passed: TransferProgress?
        var passedAt = ContinuousClock.now
        var subscribers: [AsyncStream<TransferProgress>.Continuation] = []
    }

    private struct State {
        var upload = Channel()
        var download = Channel()
        var isEnded = false

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
        state.withLock { state in
            guard !state.isEnded else { return }
            state[direction].latest = progress
            let channel = state[direction]
            let now = ContinuousClock.now
            guard Self.passes(progress, after: channel.passed, at: now - channel.passedAt) else { return }
            state[direction].passed = progress
            state[direction].passedAt = now
            for subscriber in channel.subscribers { subscriber.yield(progress) }
        }
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

    /// A sequence of the values of `direction` from now on (the latest one first), which ends with
    /// the call.
    func subscribe(_ direction: Direction) -> AsyncStream<TransferProgress> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: TransferProgress.self,
            bufferingPolicy: .bufferingNewest(128)
        )
        let isEnded = state.withLock { state -> Bool in
            if let latest = state[direction].passed { continuation.yield(latest) }
            if !state.isEnded { state[direction].subscribers.append(continuation) }
            return state.isEnded
        }
        if isEnded { continuation.finish() }
        return stream
    }

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
                    state[direction].passed = last
                    if last != channel.passed {
                        for subscriber in channel.subscribers { subscriber.yield(last) }
                    }
                }
                all += channel.subscribers
                state[direction].subscribers = []
            }
            return all
        }
        for subscriber in subscribers { subscriber.finish() }
    }
}
