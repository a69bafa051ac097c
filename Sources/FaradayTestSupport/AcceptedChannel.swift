import NIOConcurrencyHelpers
import NIOCore

/// A channel a server accepted, closed properly even when it is never served.
///
/// A `NIOAsyncChannel` dropped without `executeThenClose` stops the process (its writer's
/// `deinit` is a precondition failure). A server that shuts down while connections are being
/// accepted drops some: those NIO had accepted but the accept loop no longer takes. Each is held
/// here; whoever serves it takes it, and one that nobody took is closed by a task of its own.
final class AcceptedChannel<Inbound: Sendable, Outbound: Sendable>: Sendable {
    private let channel: NIOAsyncChannel<Inbound, Outbound>
    private let isTaken = NIOLockedValueBox(false)

    init(_ channel: NIOAsyncChannel<Inbound, Outbound>) {
        self.channel = channel
    }

    /// The channel, for the one who serves it (and runs its `executeThenClose`).
    func take() -> NIOAsyncChannel<Inbound, Outbound> {
        isTaken.withLockedValue { $0 = true }
        return channel
    }

    deinit {
        guard !isTaken.withLockedValue({ $0 }) else { return }
        let channel = self.channel
        Task { try? await channel.executeThenClose { _, _ in } }
    }
}
