#if AsyncHTTPClient
import Faraday
import NIOCore
import NIOHTTP1

/// The connection closed, or was reset, before any byte of the answer to a request sent on it
/// after it had served another: a server's keep-alive timeout may have closed it as the request
/// went out. The adapter sends such a request once more when it may go twice.
struct StaleConnectionClosed: Error, CustomStringConvertible {
    /// The reset, when the connection was reset rather than closed.
    let underlying: (any Error)?

    var description: String {
        "the server closed the reused connection without answering" + (underlying.map { " (\($0))" } ?? "")
    }
}

/// Sits between AsyncHTTPClient's HTTP/1.1 codec and its request handler on every connection,
/// and tells a close before any byte of the answer on a reused connection from any other failure:
/// it passes ``StaleConnectionClosed`` to the request handler, which fails the request with it.
/// AsyncHTTPClient itself does not say whether a request went on a reused connection.
///
/// Its state is touched on the channel's loop only, as NIO calls handlers.
final class StaleConnectionDetector: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = HTTPClientRequestPart

    /// Responses read to their end on this connection.
    private var answered = 0
    /// A request went out and no byte of its answer has come.
    private var waitingForAnswer = false

    /// Whether a failure now is the stale close of a reused connection.
    private var isStale: Bool { waitingForAnswer && answered > 0 }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .head = unwrapOutboundIn(data) { waitingForAnswer = true }
        context.write(data, promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        waitingForAnswer = false
        if case .end = unwrapInboundIn(data) { answered += 1 }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard isStale, error is IOError || error is ChannelError else { return context.fireErrorCaught(error) }
        waitingForAnswer = false
        context.fireErrorCaught(StaleConnectionClosed(underlying: error))
    }

    func channelInactive(context: ChannelHandlerContext) {
        if isStale {
            waitingForAnswer = false
            context.fireErrorCaught(StaleConnectionClosed(underlying: nil))
        }
        context.fireChannelInactive()
    }
}
#endif
