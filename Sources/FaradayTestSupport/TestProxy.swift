import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// An HTTP proxy on 127.0.0.1 for the adapters' proxy tests, as squid or tinyproxy answer:
/// `CONNECT host:port` opens a tunnel (`200 Connection established`, then bytes both ways), an
/// absolute-form request (`GET http://host:port/path`) is forwarded in origin form without
/// `Proxy-Authorization`, and with `credentials` a request without the matching
/// `Proxy-Authorization: Basic` gets `407` with `Proxy-Authenticate`. It reaches 127.0.0.1,
/// `localhost` and `[::1]` only (`403` for anything else), and records what passed through it. As
/// a SOCKS5 proxy (RFC 1928; with `credentials`, only with that user name and password, RFC 1929)
/// it opens a tunnel for a `CONNECT` command to an IPv4 or IPv6 address or a name, recorded with
/// the method `SOCKS5` (and the user name as `proxyAuthorization`); refused credentials are
/// recorded with the method `SOCKS5-AUTH` and status 1.
package final class TestProxy: Sendable {
    /// The protocol the proxy speaks.
    package enum Kind: Sendable {
        case http, socks5
    }

    /// One request the proxy received.
    package struct Seen: Sendable, Equatable {
        /// `CONNECT`, `GET`…
        package let method: String
        /// `127.0.0.1:8080` for a tunnel, the absolute URL for a forwarded request.
        package let target: String
        /// The `Proxy-Authorization` the request carried.
        package let proxyAuthorization: String?
        /// The answer: 200 for an opened tunnel or a forwarded request, 407, 403 or 502.
        package let status: Int
    }

    package let port: Int
    private let channel: any Channel
    private let acceptLoop: Task<Void, Never>
    private let seen: NIOLockedValueBox<[Seen]>

    /// What passed through, in order.
    package var requests: [Seen] { seen.withLockedValue { $0 } }

    /// `http://127.0.0.1:port`.
    package var url: String { "http://127.0.0.1:\(port)" }

    /// Starts a proxy; with `credentials` (user, password) it demands them.
    package static func start(credentials: (String, String)? = nil, kind: Kind = .http) async throws -> TestProxy {
        let expected = credentials.map { "Basic " + Data("\($0.0):\($0.1)".utf8).base64EncodedString() }
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    AcceptedChannel(try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel))
                }
            }
        let seen = NIOLockedValueBox<[Seen]>([])
        let acceptLoop = Task {
            await serveConnections(of: AcceptedChannel<ByteBuffer, ByteBuffer>.self) { accepted in
                try? await server.executeThenClose { inbound in
                    for try await connection in inbound { accepted.yield(connection) }
                }
            } serve: { connection in
                switch kind {
                case .http: await serve(connection.take(), expected: expected, seen: seen)
                case .socks5: await serveSOCKS5(connection.take(), credentials: credentials, seen: seen)
                }
            }
        }
        return TestProxy(
            port: server.channel.localAddress?.port ?? 0,
            channel: server.channel,
            acceptLoop: acceptLoop,
            seen: seen
        )
    }

    private init(port: Int, channel: any Channel, acceptLoop: Task<Void, Never>, seen: NIOLockedValueBox<[Seen]>) {
        self.port = port
        self.channel = channel
        self.acceptLoop = acceptLoop
        self.seen = seen
    }

    package func shutdown() async throws {
        channel.close(promise: nil)
        acceptLoop.cancel()
    }

    private static func serve(
        _ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>,
        expected: String?,
        seen: NIOLockedValueBox<[Seen]>
    ) async {
        try? await connection.executeThenClose { inbound, outbound in
            var iterator = inbound.makeAsyncIterator()
            var buffer = ByteBuffer()
            var headEnd: Int?
            while headEnd == nil {
                guard var chunk = try await iterator.next(), buffer.readableBytes < 65_536 else { return }
                buffer.writeBuffer(&chunk)
                headEnd = buffer.readableBytesView.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound
            }
            guard let headEnd, let head = buffer.readString(length: headEnd - buffer.readerIndex) else { return }
            let lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
            let requestLine = (lines.first ?? "").split(separator: " ").map(String.init)
            guard requestLine.count == 3 else { return }
            let (method, target) = (requestLine[0], requestLine[1])
            let headers = lines.dropFirst().compactMap { line -> (String, String)? in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return (
                    line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                )
            }
            let authorization = headers.first { $0.0 == "proxy-authorization" }?.1
            func record(_ status: Int) {
                seen.withLockedValue {
                    $0.append(Seen(method: method, target: target, proxyAuthorization: authorization, status: status))
                }
            }
            func answer(_ status: Int, _ reason: String, _ extra: String = "") async throws {
                record(status)
                try await outbound.write(
                    ByteBuffer(
                        string: "HTTP/1.1 \(status) \(reason)\r\n\(extra)Content-Length: 0\r\nConnection: close\r\n\r\n"
                    )
                )
            }
            if let expected, authorization != expected {
                return try await answer(
                    407,
                    "Proxy Authentication Required",
                    "Proxy-Authenticate: Basic realm=\"test proxy\"\r\n"
                )
            }
            // Where to: `host:port` for CONNECT, the absolute URL's authority otherwise.
            let authority: String
            var forwardedHead: String?
            if method == "CONNECT" {
                authority = target
            } else {
                guard let url = URLComponents(string: target), let host = url.host else {
                    return try await answer(400, "Bad Request")
                }
                authority = "\(host):\(url.port ?? 80)"
                let path =
                    (url.percentEncodedPath.isEmpty ? "/" : url.percentEncodedPath)
                    + (url.percentEncodedQuery.map { "?" + $0 } ?? "")
                // One request per connection, so that no later request reaches the origin unrewritten.
                let kept = lines.dropFirst().filter {
                    let name = $0.lowercased()
                    return !name.hasPrefix("proxy-") && !name.hasPrefix("connection:")
                }
                forwardedHead =
                    (["\(method) \(path) \(requestLine[2])"] + kept + ["Connection: close"]).joined(separator: "\r\n")
                    + "\r\n\r\n"
            }
            guard let colon = authority.lastIndex(of: ":"), let port = Int(authority[authority.index(after: colon)...]),
                let host = loopback(String(authority[..<colon]))
            else {
                return try await answer(403, "Forbidden")
            }
            try await relay(connection, outbound, iterator, buffer, to: host, port: port) { opened in
                record(opened ? 200 : 502)
                guard opened else {
                    try await outbound.write(
                        ByteBuffer(string: "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    )
                    return nil
                }
                if let forwardedHead { return ByteBuffer(string: forwardedHead) }
                try await outbound.write(ByteBuffer(string: "HTTP/1.1 200 Connection established\r\n\r\n"))
                return nil
            }
        }
    }

    /// The loopback address a target's host names (`127.0.0.1`, `localhost`, `[::1]` or `::1`),
    /// without brackets, or `nil` for any other host: the proxy goes nowhere else.
    static func loopback(_ host: String) -> String? {
        switch host {
        case "127.0.0.1", "localhost": "127.0.0.1"
        case "[::1]", "::1": "::1"
        default: nil
        }
    }

    /// Connects to `host`:`port` (a loopback address), tells the client through `open` (which returns bytes to send
    /// the origin first, if any), then copies bytes both ways until either side closes, closing both.
    static func relay(
        _ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>,
        _ outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>,
        _ iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator,
        _ leftover: ByteBuffer,
        to host: String,
        port: Int,
        open: (Bool) async throws -> ByteBuffer?
    ) async throws {
        let upstream: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            upstream = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            _ = try await open(false)
            return
        }
        var clientBytes = iterator
        try await upstream.executeThenClose { upstreamInbound, upstreamOutbound in
            if let first = try await open(true) { try await upstreamOutbound.write(first) }
            if leftover.readableBytes > 0 { try await upstreamOutbound.write(leftover) }
            // Whichever side closes first, both are closed: a client sees the origin's close
            // on its pooled connection, and the origin sees the client's.
            let (client, origin) = (connection.channel, upstream.channel)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    defer { client.close(promise: nil) }
                    for try await chunk in upstreamInbound { try await outbound.write(chunk) }
                }
                defer { origin.close(promise: nil) }
                while let chunk = try await clientBytes.next() { try await upstreamOutbound.write(chunk) }
                origin.close(promise: nil)
                try? await group.next()
                group.cancelAll()
            }
        }
    }
}
