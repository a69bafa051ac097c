#if AsyncHTTPClient
import AsyncHTTPClient
import Faraday
import FaradayNIO
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Tracing

// The HTTPClient of a request: its key (timeouts, pinning, proxy) and its configuration.
extension AsyncHTTPClientAdapter {
    /// The key of a request's client, and the pin check a new client for it would make (the
    /// first request's policy is the client's).
    func clientKey(for request: Request) throws(FaradayError) -> (ClientKey, ConnectionPinVerifier?) {
        let options = request.options
        let pinning = try PinnedHost.forRequest(request)
        let proxy = options.proxy?.proxy(for: request.url)
        // AsyncHTTPClient speaks plain HTTP to HTTP proxies, and SOCKS5 without authentication.
        if let proxy, !proxy.isPlainHTTPOrOpenSOCKS5 {
            throw proxy.refusal(by: "AsyncHTTPClientAdapter", for: request)
        }
        // Through a tunnel AsyncHTTPClient checks an IP-literal origin's certificate against the
        // proxy's address (the peer it is connected to): refused rather than checked wrongly.
        if proxy != nil, request.url.scheme?.lowercased() == "https",
            let host = request.url.host, (try? SocketAddress(ipAddress: host, port: 0)) != nil,
            try TLSSettings.configuration(options.tls, base: tlsBase)?.certificateVerification
                ?? tlsBase?.certificateVerification ?? .fullVerification == .fullVerification
        {
            throw FaradayError(
                .unsupportedOption,
                "AsyncHTTPClientAdapter cannot check the certificate of an IP address (\(host)) through a proxy: "
                    + "AsyncHTTPClient checks it against the proxy's address. NIOAdapter checks it against the "
                    + "origin's; the request was not sent.",
                method: request.method,
                url: request.url
            )
        }
        let key = ClientKey(
            connect: options.openTimeout ?? configuration.connectTimeout,
            read: options.readTimeout ?? configuration.readTimeout,
            write: options.writeTimeout ?? configuration.writeTimeout,
            pinned: pinning?.0,
            proxy: proxy
        )
        return (key, pinning?.1)
    }

    func makeClient(_ key: ClientKey, verifier: ConnectionPinVerifier?) -> HTTPClient {
        var clientConfiguration = HTTPClient.Configuration(
            tlsConfiguration: tlsBase ?? TLSSettings.raisingMinimumVersion(.makeClientConfiguration(), to: .v1_2),
            redirectConfiguration: .disallow,
            timeout: Self.clientTimeout(key),
            connectionPool: .init(idleTimeout: .init(configuration.idleTimeout)),
            proxy: key.proxy.map(Self.clientProxy),
            ignoreUncleanSSLShutdown: false,
            decompression: .disabled
        )
        clientConfiguration.httpVersion = configuration.httpVersion
        clientConfiguration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit =
            configuration.maximumConnectionsPerHost
        // A refused or failed connection fails the call at once; retrying is a middleware's job.
        clientConfiguration.connectionPool.retryConnectionEstablishment = false
        // AsyncHTTPClient would start a span of its own for every request, next to the one
        // TraceRequests makes for the call (and outside its trace): spans are TraceRequests' job,
        // the same on every adapter. Without a tracer that is also a few microseconds a request saved.
        clientConfiguration.tracing.tracer = nil
        let verify = verifier?.initializer()
        // Each HTTP/1.1 connection reads as NIOAdapter's do (large reads for long bodies), hands
        // on an early answer's end after its request's (and closes after that end when the server
        // closed first), and tells a reused connection's stale close from other failures.
        clientConfiguration.http1_1ConnectionDebugInitializer = { channel in
            let added = channel.setOption(.recvAllocator, value: Exchange.socketReads).flatMap {
                // The server's close reaches AnswerEndAfterRequestEnd, which closes the connection.
                channel.setOption(.allowRemoteHalfClosure, value: true)
            }.flatMap {
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    let decoder = try sync.context(handlerType: ByteToMessageHandler<HTTPResponseDecoder>.self)
                    try sync.addHandlers(
                        [AnswerEndAfterRequestEnd(), StaleConnectionDetector()],
                        position: .after(decoder.handler)
                    )
                }
            }
            guard let verify else { return added }
            return added.flatMap { verify(channel) }
        }
        clientConfiguration.http2ConnectionDebugInitializer = verify
        return HTTPClient(eventLoopGroup: eventLoopGroup, configuration: clientConfiguration)
    }

    /// The client's proxy: a `CONNECT` tunnel for every URL (AsyncHTTPClient tunnels plain
    /// `http://` too), or SOCKS5.
    static func clientProxy(_ proxy: Proxy) -> HTTPClient.Configuration.Proxy {
        switch proxy.kind {
        case .socks5:
            return .socksServer(host: proxy.host, port: proxy.port)
        case .http, .https, .socks4, .unreadable:  // all but the first refused by `clientKey(for:)`
            let authorization = proxy.username.map {
                HTTPClient.Authorization.basic(username: $0, password: proxy.password ?? "")
            }
            return .server(host: proxy.host, port: proxy.port, authorization: authorization)
        }
    }

    /// The call's logger (HTTPLogger's, with the call's metadata) for AsyncHTTPClient's own lines
    /// about the request, at `.debug` at most: its `.trace` lines print response heads and the
    /// first bytes of bodies as they are, which no ``Redaction`` has seen (cookies, tokens).
    static func clientLogger(_ logger: Logger?) -> Logger? {
        guard var logger else { return nil }
        if logger.logLevel < .debug { logger.logLevel = .debug }
        return logger
    }

    static func clientTimeout(_ timeouts: ClientKey) -> HTTPClient.Configuration.Timeout {
        var timeout = HTTPClient.Configuration.Timeout(
            connect: TimeAmount(timeouts.connect),
            read: timeouts.read.map(TimeAmount.init)
        )
        timeout.write = timeouts.write.map(TimeAmount.init)
        return timeout
    }
}
#endif
