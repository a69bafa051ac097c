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
    private static func loopback(_ host: String) -> String? {
        switch host {
        case "127.0.0.1", "localhost": "127.0.0.1"
        case "[::1]", "::1": "::1"
        default: nil
        }
    }

    /// Connects to `host`:`port` (a loopback address), tells the client through `open` (which returns bytes to send
    /// the origin first, if any), then copies bytes both ways until either side closes, closing both.
    private static func relay(
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

    /// A SOCKS5 handshake, without authentication or with `credentials`, then a tunnel for the
    /// `CONNECT` command.
    private static func serveSOCKS5(
        _ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>,
        credentials: (String, String)?,
        seen: NIOLockedValueBox<[Seen]>
    ) async {
        try? await connection.executeThenClose { inbound, outbound in
            var iterator = inbound.makeAsyncIterator()
            var buffer = ByteBuffer()
            func need(_ count: Int) async throws -> Bool {
                while buffer.readableBytes < count {
                    guard var chunk = try await iterator.next() else { return false }
                    buffer.writeBuffer(&chunk)
                }
                return true
            }
            // Greeting: version 5, the methods offered; "no authentication" (0) is chosen, or with
            // credentials "user name and password" (2).
            guard try await need(2), buffer.getInteger(at: buffer.readerIndex, as: UInt8.self) == 5,
                let methods = buffer.getInteger(at: buffer.readerIndex + 1, as: UInt8.self),
                try await need(2 + Int(methods))
            else { return }
            let offered = buffer.readBytes(length: 2 + Int(methods))?.dropFirst(2) ?? []
            let method: UInt8 = credentials == nil ? 0 : 2
            guard offered.contains(method) else {
                return try await outbound.write(ByteBuffer(bytes: [5, 0xFF]))
            }
            try await outbound.write(ByteBuffer(bytes: [5, method]))
            var user: String?
            if let credentials {
                // RFC 1929: version 1, the user name and the password, each after its length.
                guard try await need(2), buffer.getInteger(at: buffer.readerIndex, as: UInt8.self) == 1,
                    let userLength = buffer.getInteger(at: buffer.readerIndex + 1, as: UInt8.self),
                    try await need(3 + Int(userLength)),
                    let passwordLength = buffer.getInteger(
                        at: buffer.readerIndex + 2 + Int(userLength),
                        as: UInt8.self
                    ),
                    try await need(3 + Int(userLength) + Int(passwordLength)),
                    let message = buffer.readBytes(length: 3 + Int(userLength) + Int(passwordLength))
                else { return }
                let name = String(decoding: message[2..<(2 + Int(userLength))], as: UTF8.self)
                let password = String(decoding: message[(3 + Int(userLength))...], as: UTF8.self)
                guard name == credentials.0, password == credentials.1 else {
                    seen.withLockedValue {
                        $0.append(Seen(method: "SOCKS5-AUTH", target: "", proxyAuthorization: name, status: 1))
                    }
                    return try await outbound.write(ByteBuffer(bytes: [1, 1]))
                }
                user = name
                try await outbound.write(ByteBuffer(bytes: [1, 0]))
            }
            // Request: version, command, reserved, address type, address, port.
            guard try await need(5), let header = buffer.getBytes(at: buffer.readerIndex, length: 5), header[0] == 5
            else { return }
            let addressLength: Int
            switch header[3] {
            case 1: addressLength = 4
            case 3: addressLength = 1 + Int(header[4])
            case 4: addressLength = 16
            default:
                // Address type not supported.
                return try await outbound.write(ByteBuffer(bytes: [5, 8, 0, 1, 0, 0, 0, 0, 0, 0]))
            }
            guard try await need(4 + addressLength + 2), let request = buffer.readBytes(length: 4 + addressLength + 2)
            else { return }
            let address = Array(request[4..<(4 + addressLength)])
            let port = Int(request[4 + addressLength]) << 8 | Int(request[5 + addressLength])
            let host =
                switch header[3] {
                case 1: address.map(String.init).joined(separator: ".")
                // Recorded in brackets, so that an address and a name `::1` (which no resolver knows) differ.
                case 4:
                    "["
                        + ((try? SocketAddress(packedIPAddress: ByteBuffer(bytes: address), port: port))?.ipAddress
                            ?? "?") + "]"
                default: String(decoding: address.dropFirst(), as: UTF8.self)
                }
            func reply(_ code: UInt8) async throws {
                seen.withLockedValue {
                    $0.append(
                        Seen(method: "SOCKS5", target: "\(host):\(port)", proxyAuthorization: user, status: Int(code))
                    )
                }
                try await outbound.write(ByteBuffer(bytes: [5, code, 0, 1, 0, 0, 0, 0, 0, 0]))
            }
            guard header[1] == 1 else { return try await reply(7) }  // command not supported
            guard let loopbackHost = loopback(host) else { return try await reply(2) }  // not allowed
            try await relay(connection, outbound, iterator, buffer, to: loopbackHost, port: port) { opened in
                try await reply(opened ? 0 : 5)  // succeeded, or connection refused
                return nil
            }
        }
    }
}
