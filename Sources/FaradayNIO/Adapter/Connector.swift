#if NIO
import Faraday
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOConcurrencyHelpers
import NIOCore
import NIOExtras
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOTLS
import SwiftASN1
import X509

/// Opens a connection for a key: TCP (to the proxy when there is one), the proxy's tunnel, TLS
/// with the pin check, then HTTP/1.1, all within the connect timeout.
enum Connector {
    /// Opens the connection; a call cancelled during the TCP connect, the proxy's handshake or
    /// TLS's stops at once (the channels it opened are closed), with `cancelled`. A name being
    /// resolved is not interrupted: the call stops when the lookup returns.
    static func connect(
        _ key: PoolKey,
        on loop: any EventLoop,
        tls: TLSContext?,
        verifier: ConnectionPinVerifier?,
        timeout: Duration,
        cancellation: CancellationToken
    ) async throws -> HTTP1Connection {
        let attempt = Attempt()
        let cancelled = FaradayError(.cancelled, "The request was cancelled while its connection was opened.")
        let connection: HTTP1Connection
        do {
            connection = try await cancellation.withCancellationHandler {
                try await connect(key, on: loop, tls: tls, verifier: verifier, timeout: timeout, attempt: attempt)
            } onCancel: {
                attempt.cancel()
            }
        } catch {
            guard attempt.isCancelled else { throw error }
            throw cancelled
        }
        // A cancel that comes from now on leaves the connection alone (the pool may hand it on);
        // one that came before its handlers ran has closed it.
        guard attempt.finish() else {
            connection.channel.close(promise: nil)
            throw cancelled
        }
        return connection
    }

    private static func connect(
        _ key: PoolKey,
        on loop: any EventLoop,
        tls: TLSContext?,
        verifier: ConnectionPinVerifier?,
        timeout: Duration,
        attempt: Attempt
    ) async throws -> HTTP1Connection {
        let target = key.proxy.map { ($0.host, $0.port) } ?? (key.bareHost, key.port)
        let deadline = NIODeadline.now() + TimeAmount(timeout)
        let channel = try await ClientBootstrap(group: loop)
            .connectTimeout(TimeAmount(timeout))
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelOption(.recvAllocator, value: Exchange.socketReads)
            .channelInitializer { channel in
                attempt.adopt(channel)
                    ? channel.eventLoop.makeSucceededVoidFuture()
                    : channel.eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel)
            }
            .connect(host: target.0, port: target.1)
            .get()
        if attempt.isCancelled {  // connected as the cancel came
            channel.close(promise: nil)
            throw CancellationError()
        }
        // The proxy's handshake and TLS's share what is left of the timeout.
        let timedOut = NIOLockedValueBox(false)
        let timer = loop.scheduleTask(deadline: deadline) {
            timedOut.withLockedValue { $0 = true }
            channel.close(promise: nil)
        }
        defer { timer.cancel() }
        do {
            if let proxy = key.proxy {
                try await tunnel(channel, through: proxy, to: key, deadline: deadline)
            }
            if let tls {
                try await startTLS(channel, context: tls.context, host: key.bareHost)
                if let address = tls.checkedAddress { try await checkNames(address, on: channel, host: key.bareHost) }
                if let verifier { try await verifier.initializer()(channel).get() }
            }
            let handler = try await loop.submit {
                // NIO checks every field it writes (names are tokens, values hold no CR, LF or
                // NUL): HTTPTypes has checked the request's own, but `Host` and the framing
                // fields are the adapter's.
                try channel.pipeline.syncOperations.addHTTPClientHandlers(enableOutboundHeaderValidation: true)
                let handler = ResponseHandler()
                try channel.pipeline.syncOperations.addHandler(handler)
                return handler
            }.get()
            return HTTP1Connection(channel: channel, handler: handler)
        } catch {
            channel.close(promise: nil)
            if timedOut.withLockedValue({ $0 }) {
                throw FaradayError(.connectTimeout, "Opening the connection timed out (\(timeout)).", underlying: error)
            }
            throw error
        }
    }

    /// Refuses a certificate whose names do not include the origin's IP `address`.
    private static func checkNames(_ address: [UInt8], on channel: any Channel, host: String) async throws {
        let leaf = try await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self).peerCertificate
        }.get()
        // An IPv4-mapped IPv6 origin (`[::ffff:10.0.0.5]`) is compared as its 16 bytes, as NIOSSL
        // compares an address it is connected to.
        let names = try? leaf.map { try Certificate(derEncoded: $0.toDERBytes()).extensions.subjectAlternativeNames }
        let named = names??.contains { name in
            if case .ipAddress(let octets) = name { return Array(octets.bytes) == address }
            return false
        }
        guard named == true else {
            throw FaradayError(.tlsFailure, "The server's certificate does not name the address \(host).")
        }
    }

    /// The TLS handshake, naming the host (SNI) unless it is an IP address.
    private static func startTLS(_ channel: any Channel, context: NIOSSLContext, host bare: String) async throws {
        let isAddress = (try? SocketAddress(ipAddress: bare, port: 0)) != nil
        let handshake = channel.eventLoop.makePromise(of: Void.self)
        do {
            try await channel.eventLoop.submit {
                let sync = channel.pipeline.syncOperations
                try sync.addHandler(NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : bare))
                try sync.addHandler(
                    EventWaiter(promise: handshake) { event in
                        if case TLSUserEvent.handshakeCompleted = event { return true }
                        return false
                    }
                )
            }.get()
        } catch {
            handshake.fail(error)
            throw error
        }
        try await handshake.futureResult.get()
    }

    /// Opens the tunnel to the origin: `CONNECT` through an HTTP proxy (for `http://` origins
    /// too, as AsyncHTTPClientAdapter does), or SOCKS5.
    private static func tunnel(
        _ channel: any Channel,
        through proxy: Proxy,
        to key: PoolKey,
        deadline: NIODeadline
    ) async throws {
        let established = channel.eventLoop.makePromise(of: Void.self)
        switch proxy.kind {
        case .socks5:
            // An IP literal goes as an address (IPv6 has no form as a name), a name as a name.
            let target =
                (try? SocketAddress(ipAddress: key.bareHost, port: key.port)).map(SOCKS5Handshake.Target.address)
                ?? .name(key.host, port: key.port)
            let credentials = proxy.username.map { (user: $0, password: proxy.password ?? "") }
            try await channel.eventLoop.flatSubmit { () -> EventLoopFuture<Void> in
                let handshake = SOCKS5Handshake(target: target, credentials: credentials, established: established)
                do {
                    try channel.pipeline.syncOperations.addHandler(handshake)
                } catch {
                    established.fail(error)
                }
                return established.futureResult
            }.get()
        case .http, .https, .socks4, .unreadable:  // all but the first refused before connecting
            var headers = HTTPHeaders()
            if let username = proxy.username {
                let credentials = Data("\(username):\(proxy.password ?? "")".utf8).base64EncodedString()
                headers.add(name: "Proxy-Authorization", value: "Basic \(credentials)")
            }
            let connectHeaders = headers
            try await channel.eventLoop.flatSubmit { () -> EventLoopFuture<Void> in
                let encoder = HTTPRequestEncoder()
                let decoder = ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .dropBytes))
                let connect = NIOHTTP1ProxyConnectHandler(
                    targetHost: key.bracketedHost,  // `CONNECT [::1]:443`: the authority form (RFC 9110 §9.3.6)
                    targetPort: key.port,
                    headers: connectHeaders,
                    deadline: deadline,
                    promise: established
                )
                let sync = channel.pipeline.syncOperations
                do {
                    try sync.addHandler(encoder)
                    try sync.addHandler(decoder)
                    try sync.addHandler(connect)
                } catch {
                    established.fail(error)
                    return channel.eventLoop.makeFailedFuture(error)
                }
                // The connect handler leaves the pipeline on its own once the tunnel is open.
                return established.futureResult.assumeIsolated().flatMap {
                    sync.removeHandler(decoder).assumeIsolated().flatMap {
                        sync.removeHandler(encoder)
                    }.nonisolated()
                }.nonisolated()
            }.get()
        }
    }

    /// The error of a refused tunnel as a `FaradayError`.
    static func proxyError(_ error: any Error, proxy: Proxy, request: Request) -> FaradayError? {
        if let refusal = error as? SOCKS5Handshake.Failure {
            return refusal.faradayError(proxy: proxy, request: request)
        }
        guard let refusal = error as? NIOHTTP1ProxyConnectHandler.Error else { return nil }
        if refusal == .proxyAuthenticationRequired() {
            return FaradayError(
                .proxyAuthenticationRequired,
                "The proxy (\(proxy.address)) answered 407 Proxy Authentication Required: it wants credentials, or other ones.",
                method: request.method,
                url: request.url,
                underlying: error
            )
        }
        if refusal == .httpProxyHandshakeTimeout() {
            return FaradayError(.connectTimeout, "The proxy did not answer in time.", underlying: error)
                .attaching(request)
        }
        return FaradayError(
            .connectionFailed,
            "The proxy (\(proxy.address)) refused to open a tunnel to the origin: \(error).",
            method: request.method,
            url: request.url,
            underlying: error
        )
    }

}

/// Completes a promise when a user event it waits for passes (a finished TLS handshake), or fails
/// it with the first error or a close; then leaves the pipeline.
private final class EventWaiter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let promise: EventLoopPromise<Void>
    private let isAwaited: (Any) -> Bool
    private var isDone = false

    init(promise: EventLoopPromise<Void>, isAwaited: @escaping (Any) -> Bool) {
        self.promise = promise
        self.isAwaited = isAwaited
    }

    func handlerAdded(context: ChannelHandlerContext) {
        // Closed before the handshake could start: the event will never come.
        if !context.channel.isActive { finish(failing: ChannelError.eof) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        finish(failing: ChannelError.eof)  // removed with the pipeline before the event
    }

    private func finish(failing error: any Error) {
        if !isDone { promise.fail(error) }
        isDone = true
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if !isDone, isAwaited(event) {
            isDone = true
            promise.succeed()
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish(failing: error)
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(failing: ChannelError.eof)
        context.fireChannelInactive()
    }
}
#endif
