/// Runs the calls of handles dropped before anyone consumed them, so that a request is sent
/// whether or not its handle is used (the original Swift Faraday's behaviour).
///
/// One task per connection, started with the connection, takes the calls from a queue and runs
/// each in a child task to its end, every layer's hooks included. When the connection goes away
/// the queue closes, and the task ends once the calls it holds have finished.
final class BackgroundCalls: Sendable {
    private let queue: AsyncStream<Response.Start>.Continuation

    init() {
        let (calls, queue) = AsyncStream<Response.Start>.makeStream()
        self.queue = queue
        Task {
            await withDiscardingTaskGroup { group in
                for await start in calls {
                    group.addTask { await Self.run(start) }
                }
            }
        }
    }

    deinit { queue.finish() }

    /// Queues a call to run to its end.
    func run(_ start: @escaping Response.Start) {
        queue.yield(start)
    }

    private static func run(_ start: Response.Start) async {
        guard let completions = try? await start() else { return }
        while let env = try? await completions.next(), !env.isFinal {}
    }
}
