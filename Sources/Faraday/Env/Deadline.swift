import Synchronization

/// Cancels a token when a duration has passed, unless stopped first.
final class Deadline: Sendable {
    private final class Flag: Sendable {
        let value = Atomic(false)
    }

    private let passed = Flag()
    private let timer: Task<Void, Never>

    init(after duration: Duration, cancelling token: CancellationToken) {
        let passed = self.passed
        timer = Task {
            guard (try? await Task.sleep(for: duration)) != nil else { return }
            passed.value.store(true, ordering: .sequentiallyConsistent)
            token.cancel()
        }
    }

    var hasPassed: Bool { passed.value.load(ordering: .sequentiallyConsistent) }

    func stop() { timer.cancel() }
}
