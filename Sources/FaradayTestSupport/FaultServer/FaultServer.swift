import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// An HTTP/1.1 server on 127.0.0.1 that breaks its answers the ways real servers and networks
/// do, at random and reproducibly from a seed: for the fault campaign (`Benchmarks/FaultCampaign`)
/// and its short version in the tests.
///
/// A request names itself in its last path component (`/c/NAME`). The server draws a ``Fault``
/// for it from the seed, the name and how many times that name arrived before, so that a run with
/// the same seed meets the same faults whatever order its requests arrive in, and a retried
/// request meets another draw. A whole answer's body is ``responseBody(for:)`` of the name, with
/// the name in `x-request-name`, so a client can tell a wrong body from the right one; a request's
/// body should be ``requestBody(for:)`` (`x-request-body: ok` or `wrong` says whether it was).
public final class FaultServer: Sendable {
    /// The port it listens on.
    public let port: Int
    /// The seed its faults are drawn from.
    public let seed: UInt64
    private let channel: any Channel
    private let state: NIOLockedValueBox<State>

    struct State {
        var arrivals: [String: Int] = [:]
        var drawn: [Fault: Int] = [:]
        var open: [ObjectIdentifier: any Channel] = [:]
        var accepted = 0
    }

    /// `http://127.0.0.1:PORT`.
    public var baseURL: URL {
        // A fixed scheme and host and an integer port: always a valid URL.
        URL(string: "http://127.0.0.1:\(port)")!
    }

    /// How many times each fault was drawn so far.
    public var faultsDrawn: [Fault: Int] { state.withLockedValue { $0.drawn } }
    /// Requests whose head arrived so far.
    public var requestsReceived: Int { state.withLockedValue { $0.drawn.values.reduce(0, +) } }
    /// Connections accepted so far.
    public var connectionsAccepted: Int { state.withLockedValue { $0.accepted } }
    /// Connections open now.
    public var connectionsOpen: Int { state.withLockedValue { $0.open.count } }

    /// Starts a server whose faults are drawn from `seed`, or that meets every request with
    /// `fault` when one is given (a test of that fault alone).
    public static func start(seed: UInt64, always fault: Fault? = nil) async throws -> FaultServer {
        let state = NIOLockedValueBox(State())
        let plan = FaultPlan(seed: seed)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 512)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                state.withLockedValue {
                    $0.accepted += 1
                    $0.open[ObjectIdentifier(channel)] = channel
                }
                channel.closeFuture.whenComplete { _ in
                    _ = state.withLockedValue { $0.open.removeValue(forKey: ObjectIdentifier(channel)) }
                }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes))
                    )
                    try channel.pipeline.syncOperations.addHandler(
                        FaultHandler { name in
                            state.withLockedValue { state in
                                let attempt = state.arrivals[name, default: 0] + 1
                                state.arrivals[name] = attempt
                                var drawn = plan.fault(for: name, attempt: attempt)
                                if let fault { drawn.0 = fault }
                                state.drawn[drawn.0, default: 0] += 1
                                return drawn
                            }
                        }
                    )
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return FaultServer(port: channel.localAddress?.port ?? 0, seed: seed, channel: channel, state: state)
    }

    private init(port: Int, seed: UInt64, channel: any Channel, state: NIOLockedValueBox<State>) {
        self.port = port
        self.seed = seed
        self.channel = channel
        self.state = state
    }

    /// Stops listening and closes every connection.
    public func shutdown() async throws {
        try await channel.close()
        for child in state.withLockedValue({ Array($0.open.values) }) { try? await child.close() }
    }

    /// The body of a whole answer to the request named `name`: from 1 byte to 24 KiB, its bytes
    /// a function of the name and their place.
    public static func responseBody(for name: String) -> [UInt8] {
        bytes(for: name, salt: 0x5EED, maximum: 24 * 1024)
    }

    /// The body a request named `name` that has one should carry: from 1 byte to 4 KiB.
    public static func requestBody(for name: String) -> [UInt8] {
        bytes(for: name, salt: 0xB0D1, maximum: 4 * 1024)
    }

    private static func bytes(for name: String, salt: UInt64, maximum: Int) -> [UInt8] {
        let hash = hash(name) ^ salt
        let count = 1 + Int(hash % UInt64(maximum))
        return (0..<count).map { index in
            UInt8(truncatingIfNeeded: hash >> (UInt64(index % 8) * 8)) ^ UInt8(truncatingIfNeeded: index)
        }
    }

    /// FNV-1a of the name's UTF-8 bytes.
    static func hash(_ name: String) -> UInt64 {
        name.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }
}
