/// Tasks a middleware starts in the background, at most one per key, and a way to wait for them.
final class BackgroundTasks: Sendable {
    private let tasks = Locked([String: Task<Void, Never>]())

    /// Runs `work` unless work for `key` is under way.
    func run(key: String, _ work: @escaping @Sendable () async -> Void) {
        // Made under the lock, so that the task's own removal comes after its insertion.
        tasks.withLock { tasks in
            guard tasks[key] == nil else { return }
            tasks[key] = Task {
                await work()
                self.tasks.withLock { _ = $0.removeValue(forKey: key) }
            }
        }
    }

    func cancelAll() {
        for task in tasks.withLock({ $0.values }) { task.cancel() }
    }

    func waitForAll() async {
        while let task = tasks.withLock({ $0.first?.value }) { await task.value }
    }
}
