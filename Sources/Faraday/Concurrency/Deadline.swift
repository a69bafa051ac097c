/// Cancels a token when a duration has passed, unless stopped first.
final class Deadline: Sendable {
    private let passed = Locked(false)
    private let timer: Task<Void, Never>

    init(after duration: Duration, cancelling token: CancellationToken) {
        let passed = self.passed
        timer = Task {
            guard (try? await Task.sleep(for: duration)) != nil else { return }
            passed.withLock { $0 = true }
            token.cancel()
        }
    }

    var hasPassed: Bool { passed.snapshot }

    func stop() { timer.cancel() }
}
