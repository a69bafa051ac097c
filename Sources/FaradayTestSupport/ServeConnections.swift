/// Runs `accept`, which hands over each connection it accepts, and serves every connection in a
/// child task of its own; once `accept` returns, cancels the connections still being served and
/// returns when all of them have ended.
///
/// What a discarding task group would do, on a plain one (`withDiscardingTaskGroup` is macOS 14 /
/// iOS 17 and later). A plain group keeps each finished child until it is awaited, and a server
/// accepts connections without end: so the connections reach the group through a stream that a
/// child reads one at a time, and the loop awaits every child as it ends. A connection is served
/// as soon as it is read, beside the next read, and one that has ended is let go.
func serveConnections<Connection: Sendable>(
    of connectionType: Connection.Type,
    accept: @escaping @Sendable (_ accepted: AsyncStream<Connection>.Continuation) async -> Void,
    serve: @escaping @Sendable (Connection) async -> Void
) async {
    let (connections, accepted) = AsyncStream.makeStream(of: Connection.self)
    await withTaskGroup(of: ConnectionEvent<Connection>.self) { group in
        group.addTask {
            await accept(accepted)
            accepted.finish()
            return .ended
        }
        group.addTask { await ConnectionEvent.next(from: connections) }
        while let event = await group.next() {
            switch event {
            case .accepted(let connection):
                group.addTask {
                    await serve(connection)
                    return .ended
                }
                group.addTask { await ConnectionEvent.next(from: connections) }
            case .closed:
                group.cancelAll()
            case .ended:
                break
            }
        }
    }
}

/// What a child of `serveConnections(of:accept:serve:)` reports.
private enum ConnectionEvent<Connection: Sendable>: Sendable {
    /// A connection read from the stream.
    case accepted(Connection)
    /// The stream has ended: `accept` has returned, or the task was cancelled.
    case closed
    /// The accepting or the serving of one connection has ended.
    case ended

    /// The next connection in `connections`, or `closed`.
    static func next(from connections: AsyncStream<Connection>) async -> Self {
        var iterator = connections.makeAsyncIterator()
        guard let connection = await iterator.next() else { return .closed }
        return .accepted(connection)
    }
}
