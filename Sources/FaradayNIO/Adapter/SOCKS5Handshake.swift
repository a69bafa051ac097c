#if NIO
import Faraday
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore

/// The client's side of a SOCKS5 handshake (RFC 1928) on a connection to the proxy, with a user
/// name and password (RFC 1929) when the proxy has them, then the `CONNECT` to the origin.
/// Completes `established` once the tunnel is open and leaves the pipeline, handing on any bytes
/// that came after the proxy's reply; fails it with a ``Failure`` (or the connection's error)
/// otherwise.
///
/// Its state is touched on the channel's loop only, as NIO calls handlers.
final class SOCKS5Handshake: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// What the proxy refused.
    enum Failure: Error, Equatable {
        /// It accepts none of the methods offered: without credentials, it wants some.
        case noAcceptableMethod
        /// It refused the user name and password.
        case credentialsRefused
        /// It could not open the tunnel: the reply code of RFC 1928 §6.
        case connectRefused(UInt8)
        /// Its answer is not SOCKS5.
        case malformedReply
    }

    /// Where the tunnel goes: an address (IPv6 has no form as a name) or a name, and a port.
    enum Target {
        case address(SocketAddress)
        case name(String, port: Int)
    }

    private enum Stage { case choosingMethod, authenticating, connecting, open }

    private let target: Target
    private let credentials: (user: String, password: String)?
    private let established: EventLoopPromise<Void>
    private var stage = Stage.choosingMethod
    private var received = ByteBuffer()
    private var isDone = false

    init(target: Target, credentials: (user: String, password: String)?, established: EventLoopPromise<Void>) {
        self.target = target
        self.credentials = credentials
        self.established = established
    }

    func handlerAdded(context: ChannelHandlerContext) {
        guard context.channel.isActive else { return fail(ChannelError.eof, context: context) }
        // Version 5, then the methods offered: none (0), and a user name and password (2) when
        // there are credentials.
        let greeting: [UInt8] = credentials == nil ? [5, 1, 0] : [5, 2, 0, 2]
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: greeting)), promise: nil)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        fail(ChannelError.eof, context: nil)  // removed with the pipeline before the tunnel opened
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var part = unwrapInboundIn(data)
        received.writeBuffer(&part)
        do {
            try advance(context: context)
        } catch {
            fail(error, context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(ChannelError.eof, context: context)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(error, context: context)
    }

    /// Takes the proxy's replies as far as the bytes received allow.
    private func advance(context: ChannelHandlerContext) throws {
        while !isDone {
            switch stage {
            case .choosingMethod:
                guard let reply = received.readBytes(length: 2) else { return }
                guard reply[0] == 5 else { throw Failure.malformedReply }
                switch reply[1] {
                case 0:
                    sendConnect(context: context)
                case 2 where credentials != nil:
                    try sendCredentials(context: context)
                case 0xFF:
                    throw Failure.noAcceptableMethod
                default:
                    throw Failure.malformedReply
                }
            case .authenticating:
                guard let reply = received.readBytes(length: 2) else { return }
                guard reply[0] == 1 else { throw Failure.malformedReply }
                guard reply[1] == 0 else { throw Failure.credentialsRefused }
                sendConnect(context: context)
            case .connecting:
                // Version, reply, reserved, address type, then the bound address and port.
                guard received.readableBytes >= 5,
                    let header = received.getBytes(at: received.readerIndex, length: 5)
                else { return }
                guard header[0] == 5 else { throw Failure.malformedReply }
                guard header[1] == 0 else { throw Failure.connectRefused(header[1]) }
                let length: Int
                switch header[3] {
                case 1: length = 4 + 4 + 2
                case 3: length = 4 + 1 + Int(header[4]) + 2
                case 4: length = 4 + 16 + 2
                default: throw Failure.malformedReply
                }
                guard received.readableBytes >= length else { return }
                received.moveReaderIndex(forwardBy: length)
                stage = .open
                isDone = true
                established.succeed()
                context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            case .open:
                return
            }
        }
    }

    /// RFC 1929: version 1, the user name and the password, each with its length in a byte.
    private func sendCredentials(context: ChannelHandlerContext) throws {
        guard let credentials else { throw Failure.malformedReply }
        let user = Array(credentials.user.utf8)
        let password = Array(credentials.password.utf8)
        guard (1...255).contains(user.count), password.count <= 255 else {
            throw FaradayError(
                .invalidRequest,
                "A SOCKS5 proxy's user name is 1 to 255 bytes, and its password 255 at most (RFC 1929)."
            )
        }
        let message = [1, UInt8(user.count)] + user + [UInt8(password.count)] + password
        stage = .authenticating
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: message)), promise: nil)
    }

    /// RFC 1928 §4: `CONNECT` to the target, as an address or a name.
    private func sendConnect(context: ChannelHandlerContext) {
        var request = ByteBuffer(bytes: [5, 1, 0])
        switch target {
        case .address(let address):
            switch address {
            case .v4, .v6:
                let bytes = address.ipAddress.flatMap(ipLiteralBytes) ?? []
                request.writeInteger(UInt8(bytes.count == 4 ? 1 : 4))
                request.writeBytes(bytes)
            case .unixDomainSocket:
                break  // never made: the target is an IP literal's address
            }
            request.writeInteger(UInt16(truncatingIfNeeded: address.port ?? 0))
        case .name(let name, let port):
            // The URL's host check keeps a name within 253 bytes.
            let bytes = Array(name.utf8.prefix(255))
            request.writeInteger(UInt8(3))
            request.writeInteger(UInt8(bytes.count))
            request.writeBytes(bytes)
            request.writeInteger(UInt16(truncatingIfNeeded: port))
        }
        stage = .connecting
        context.writeAndFlush(wrapOutboundOut(request), promise: nil)
    }

    /// Fails the handshake once, and closes the connection.
    private func fail(_ error: any Error, context: ChannelHandlerContext?) {
        guard !isDone else { return }
        isDone = true
        established.fail(error)
        context?.close(promise: nil)
    }

    func removeHandler(context: ChannelHandlerContext, removalToken: ChannelHandlerContext.RemovalToken) {
        // What came after the proxy's reply is the origin's (a TLS handshake's first bytes).
        if received.readableBytes > 0 {
            let rest = received
            received = ByteBuffer()
            context.fireChannelRead(wrapInboundOut(rest))
        }
        context.leavePipeline(removalToken: removalToken)
    }
}

extension SOCKS5Handshake.Failure {
    /// The refusal as a `FaradayError` naming `proxy`; the password is never in it.
    func faradayError(proxy: Proxy, request: Request) -> FaradayError {
        let code: FaradayError.Code
        let message: String
        switch self {
        case .credentialsRefused:
            code = .proxyAuthenticationRequired
            message = "The SOCKS5 proxy (\(proxy.address)) refused the user name and password."
        case .noAcceptableMethod:
            code = proxy.username == nil ? .proxyAuthenticationRequired : .connectionFailed
            message =
                proxy.username == nil
                ? "The SOCKS5 proxy (\(proxy.address)) wants a user name and password."
                : "The SOCKS5 proxy (\(proxy.address)) accepts neither no authentication nor a user name and password."
        case .connectRefused(let reply):
            code = .connectionFailed
            message =
                "The SOCKS5 proxy (\(proxy.address)) could not open a tunnel to the origin: \(Self.reason(reply))."
        case .malformedReply:
            code = .connectionFailed
            message = "The proxy (\(proxy.address)) did not answer as a SOCKS5 proxy."
        }
        return FaradayError(code, message, method: request.method, url: request.url, underlying: self)
    }

    /// The meaning of a SOCKS5 reply code (RFC 1928 §6).
    private static func reason(_ reply: UInt8) -> String {
        switch reply {
        case 1: "general SOCKS server failure"
        case 2: "connection not allowed by ruleset"
        case 3: "network unreachable"
        case 4: "host unreachable"
        case 5: "connection refused"
        case 6: "TTL expired"
        case 7: "command not supported"
        case 8: "address type not supported"
        default: "reply \(reply)"
        }
    }
}
#endif
