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
            // A plain task group (a discarding one is macOS 14 / iOS 17) keeps each finished child
            // until it is awaited, and this group lives as long as the connection. So the queue is
            // read by a child too, one call at a time, and the loop awaits every child as it ends:
            // a call taken starts at once beside the next read, and a finished call is let go.
            await withTaskGroup(of: Event.self) { group in
                group.addTask { await Self.take(from: calls) }
                while let event = await group.next() {
                    guard case .taken(let start) = event else { continue }
                    group.addTask {
                        await Self.run(start)
                        return .finished
                    }
                    group.addTask { await Self.take(from: calls) }
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

    /// What a child of the group reports.
    private enum Event: Sendable {
        /// A call taken from the queue.
        case taken(Response.Start)
        /// The queue is closed: no call will come.
        case closed
        /// A call has run to its end.
        case finished
    }

    /// The next call in the queue, or `closed`.
    private static func take(from calls: AsyncStream<Response.Start>) async -> Event {
        var iterator = calls.makeAsyncIterator()
        guard let start = await iterator.next() else { return .closed }
        return .taken(start)
    }
}
