import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// A real HTTP/1.1 server on 127.0.0.1 with an ephemeral port, for tests, examples and benchmarks.
///
/// It serves the routes of ``TestServer/Route`` (echo, statuses, delays, chunked streams, large
/// bodies and faults such as resets and truncated bodies), over plain HTTP or over TLS with
/// certificates generated at start-up (``TestCertificates``).
///
/// ```swift
/// let server = try await TestServer.start()
/// defer { Task { try await server.shutdown() } }
/// let connection = try Connection(url: server.baseURL.absoluteString) { … }
/// ```
public final class TestServer: Sendable {
    /// The port the server listens on.
    public let port: Int
    /// The certificates when the server speaks TLS.
    public let certificates: TestCertificates?
    private let serverChannel: any Channel
    private let acceptLoop: Task<Void, Never>
    private let counters: Counters

    /// The address the server listens on: `127.0.0.1`, or `::1` when started there.
    public let host: String

    /// `http://127.0.0.1:PORT` (`http://[::1]:PORT` on IPv6) or `https://localhost:PORT`.
    public var baseURL: URL {
        // The string is built from a scheme, a fixed host and an integer port: always a valid URL.
        let authority = host.contains(":") ? "[\(host)]" : host
        return URL(string: certificates == nil ? "http://\(authority):\(port)" : "https://localhost:\(port)")!
    }

    /// How many TCP connections the server has accepted.
    public var connectionsAccepted: Int { counters.connections.withLockedValue { $0 } }
    /// How many requests the server has read.
    public var requestsReceived: Int { counters.requests.withLockedValue { $0 } }
    /// How many response body bytes the server has handed to its sockets.
    public var bodyBytesSent: Int { counters.bodyBytesSent.withLockedValue { $0 } }
    /// How many connections have ended, closed by either side.
    public var connectionsClosed: Int { counters.connectionsClosed.withLockedValue { $0 } }
    /// The most requests the server has answered at once: a request counts from the moment it
    /// has been read whole to its response written, so it is never more than the client's
    /// connections open then.
    public var peakRequestsInFlight: Int { counters.inFlight.withLockedValue { $0.peak } }

    /// What `/cached?key=K` answered so far, in order: `"200"` or `"304"` for each request.
    public func cachedAnswers(key: String) -> [String] {
        counters.flakyBodies.withLockedValue { $0["cached-" + key] ?? [] }
    }

    /// The `Range` of each request to `/download/…?key=K` so far, in order (`"whole"` without one).
    public func downloadRequests(key: String) -> [String] {
        counters.flakyBodies.withLockedValue { $0["download-" + key] ?? [] }
    }

    /// Closes the connection, unanswered, of each of the next `count` requests that arrive on a
    /// connection that answered one already: what a client sees when a server's keep-alive
    /// timeout closes an idle connection just as the client sends on it (nginx, gunicorn and
    /// load balancers do it at their own timeout). With `reset`, by RST rather than FIN.
    public func closeReusedConnections(next count: Int, reset: Bool = false) {
        counters.reuseDrops.withLockedValue {
            $0.armed = count
            $0.reset = reset
        }
    }

    /// The requests closed unanswered by ``closeReusedConnections(next:reset:)``.
    public var requestsClosedOnReuse: Int { counters.reuseDrops.withLockedValue { $0.dropped } }

    /// Starts a server; with `tls`, it speaks HTTPS with those certificates. With
    /// `clientAuthentication` it refuses TLS clients without a certificate issued by their CA;
    /// `maximumTLSVersion` caps the protocol version it speaks.
    public static func start(
        tls: TestCertificates? = nil,
        clientAuthentication: Bool = false,
        maximumTLSVersion: TLSVersion? = nil,
        host: String = "127.0.0.1"
    ) async throws -> TestServer {
        let sslContext = try tls.map {
            try NIOSSLContext(
                configuration: $0.serverConfiguration(
                    clientAuthentication: clientAuthentication,
                    maximumVersion: maximumTLSVersion
                )
            )
        }
        let counters = Counters()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 512)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .bind(host: host, port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let sslContext {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
                    }
                    try channel.pipeline.syncOperations.addHandler(
                        ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes))
                    )
                    let connection = try NIOAsyncChannel<HTTPServerRequestPart, ByteBuffer>(
                        wrappingChannelSynchronously: channel
                    )
                    return ServerConnection(channel: channel, accepted: AcceptedChannel(connection))
                }
            }
        let port = channel.channel.localAddress?.port ?? 0
        let acceptLoop = Task {
            await serveConnections(of: ServerConnection.self) { accepted in
                try? await channel.executeThenClose { inbound in
                    for try await connection in inbound {
                        counters.connections.withLockedValue { $0 += 1 }
                        accepted.yield(connection)
                    }
                }
            } serve: { connection in
                await connection.serve(counters: counters)
            }
        }
        return TestServer(
            host: host,
            port: port,
            certificates: tls,
            serverChannel: channel.channel,
            acceptLoop: acceptLoop,
            counters: counters
        )
    }

    private init(
        host: String,
        port: Int,
        certificates: TestCertificates?,
        serverChannel: any Channel,
        acceptLoop: Task<Void, Never>,
        counters: Counters
    ) {
        self.host = host
        self.port = port
        self.certificates = certificates
        self.serverChannel = serverChannel
        self.acceptLoop = acceptLoop
        self.counters = counters
    }

    /// Stops accepting, closes every connection and waits for them to end.
    public func shutdown() async throws {
        try? await serverChannel.close()
        acceptLoop.cancel()
        await acceptLoop.value
    }
}

final class Counters: Sendable {
    let connections = NIOLockedValueBox(0)
    let requests = NIOLockedValueBox(0)
    let bodyBytesSent = NIOLockedValueBox(0)
    let connectionsClosed = NIOLockedValueBox(0)
    /// Requests being answered now, and the most at once.
    let inFlight = NIOLockedValueBox((now: 0, peak: 0))
    /// The bodies `/flaky` received, by key.
    let flakyBodies = NIOLockedValueBox<[String: [String]]>([:])
    /// Requests on reused connections still to be closed unanswered, how (RST or FIN), and how
    /// many were.
    let reuseDrops = NIOLockedValueBox((armed: 0, reset: false, dropped: 0))

    /// Takes one armed drop: whether to close by RST; `nil` when none is armed.
    func takeReuseDrop() -> Bool? {
        reuseDrops.withLockedValue { drops in
            guard drops.armed > 0 else { return nil }
            drops.armed -= 1
            drops.dropped += 1
            return drops.reset
        }
    }

    /// Runs `answer`, counted as a request in flight while it runs.
    func answering<T>(_ answer: () async throws -> T) async rethrows -> T {
        inFlight.withLockedValue {
            $0.now += 1
            $0.peak = max($0.peak, $0.now)
        }
        defer { inFlight.withLockedValue { $0.now -= 1 } }
        return try await answer()
    }

    /// Records a `/flaky` request and returns the bodies seen for its key so far.
    func flaky(_ key: String, body: String) -> [String] {
        flakyBodies.withLockedValue {
            $0[key, default: []].append(body)
            return $0[key] ?? []
        }
    }
}
