import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL

/// An HTTPS server on 127.0.0.1 that speaks only HTTP/2 (ALPN `h2`), for checking that a client
/// negotiates it. Every request gets `200` with the header `x-http-version: 2` and, as the body,
/// the request's method and path (`GET /echo`).
public final class HTTP2TestServer: Sendable {
    /// The port it listens on.
    public let port: Int
    /// The certificates it serves.
    public let certificates: TestCertificates
    private let channel: any Channel

    /// `https://localhost:PORT`.
    public var baseURL: URL {
        // Built from a fixed scheme and host and an integer port: always a valid URL.
        URL(string: "https://localhost:\(port)")!
    }

    /// Starts a server with freshly generated certificates.
    public static func start() async throws -> HTTP2TestServer {
        let certificates = try TestCertificates.generate()
        var tls = try certificates.serverConfiguration()
        tls.applicationProtocols = ["h2"]
        let context = try NIOSSLContext(configuration: tls)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
                        mode: .server,
                        connectionConfiguration: .init(),
                        streamConfiguration: .init()
                    ) { stream in
                        stream.eventLoop.makeCompletedFuture {
                            try stream.pipeline.syncOperations.addHandlers([
                                HTTP2FramePayloadToHTTP1ServerCodec(), HTTP2EchoHandler(),
                            ])
                        }
                    }
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return HTTP2TestServer(port: channel.localAddress?.port ?? 0, certificates: certificates, channel: channel)
    }

    private init(port: Int, certificates: TestCertificates, channel: any Channel) {
        self.port = port
        self.certificates = certificates
        self.channel = channel
    }

    /// Stops listening.
    public func shutdown() async throws {
        try await channel.close()
    }
}

/// Answers each HTTP/2 stream with its method and path.
private final class HTTP2EchoHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private var head: HTTPRequestHead?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body: break
        case .end:
            let text = "\(head?.method.rawValue ?? "?") \(head?.uri ?? "?")"
            var headers = HTTPHeaders()
            headers.add(name: "x-http-version", value: "2")
            headers.add(name: "content-length", value: "\(text.utf8.count)")
            context.write(
                wrapOutboundOut(.head(HTTPResponseHead(version: .http2, status: .ok, headers: headers))),
                promise: nil
            )
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: text)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
