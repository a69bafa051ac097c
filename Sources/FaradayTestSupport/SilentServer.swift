import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A TCP listener on 127.0.0.1 that accepts connections and then neither reads nor writes: a TLS
/// handshake with it never completes and an upload to it stalls once the socket buffers fill.
public final class SilentServer: Sendable {
    /// The port it listens on.
    public let port: Int
    private let channel: any Channel
    private let accepted: NIOLockedValueBox<[any Channel]>

    /// The connections it has accepted.
    public var connectionsAccepted: Int { accepted.withLockedValue { $0.count } }

    /// Starts a silent listener.
    public static func start() async throws -> SilentServer {
        let accepted = NIOLockedValueBox([any Channel]())
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.autoRead, value: false)
            .childChannelOption(.socketOption(.so_rcvbuf), value: 4096)
            .childChannelInitializer { channel in
                accepted.withLockedValue { $0.append(channel) }
                return channel.eventLoop.makeSucceededVoidFuture()
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return SilentServer(port: channel.localAddress?.port ?? 0, channel: channel, accepted: accepted)
    }

    private init(port: Int, channel: any Channel, accepted: NIOLockedValueBox<[any Channel]>) {
        self.port = port
        self.channel = channel
        self.accepted = accepted
    }

    /// Stops listening and closes the connections it accepted.
    public func shutdown() async throws {
        for child in accepted.withLockedValue({ $0 }) { try? await child.close() }
        try await channel.close()
    }
}

/// A port on 127.0.0.1 that nothing listens on (bound, then released).
public func unusedLocalPort() async throws -> Int {
    let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .bind(host: "127.0.0.1", port: 0).get()
    let port = channel.localAddress?.port ?? 0
    try await channel.close()
    return port
}
