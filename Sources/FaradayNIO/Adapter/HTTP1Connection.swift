import Faraday
import NIOCore
import NIOHTTP1

/// One HTTP/1.1 connection: its channel and the handler that runs one exchange on it at a time.
/// Touched on its channel's event loop only.
final class HTTP1Connection: @unchecked Sendable {
    let channel: any Channel
    let handler: ResponseHandler
    /// Closes the connection when it has been idle for the pool's idle timeout.
    var idleTimer: Scheduled<Void>?

    init(channel: any Channel, handler: ResponseHandler) {
        self.channel = channel
        self.handler = handler
    }
}

/// The last handler of a connection's pipeline: hands the response's parts to the running
/// exchange, reads from the socket only as fast as the exchange's consumer takes them, fails the
/// exchange on a read timeout or a dropped connection, and says at the end whether the connection
/// can take another request.
final class ResponseHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart

    /// What happens once the exchange is over: `true` when the connection may be reused.
    typealias End = (_ reusable: Bool) -> Void

    private var context: ChannelHandlerContext?
    private var exchange: Exchange?
    private var end: End?
    private var readTimeout: TimeAmount?
    private var readTimer: Scheduled<Void>?
    private var isReading = false
    private var keepAlive = true
    /// The request's last byte has gone out: only then may the connection be reused.
    private var requestSent = false
    /// The connection closed: the pool drops it.
    private(set) var isClosed = false

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    /// Starts an exchange on this idle connection; the request is written by the caller.
    func start(_ exchange: Exchange, readTimeout: TimeAmount?, keepAlive: Bool, end: @escaping End) {
        self.exchange = exchange
        self.end = end
        self.readTimeout = readTimeout
        self.keepAlive = keepAlive
        self.requestSent = false
        read()
    }

    /// The request's end was written.
    func requestEnded() { requestSent = true }

    /// Reads from the socket unless a read is outstanding.
    func read() {
        guard let context, !isReading, !isClosed else { return }
        isReading = true
        if exchange != nil, let readTimeout {
            readTimer?.cancel()
            readTimer = context.eventLoop.scheduleTask(in: readTimeout) { [self] in
                fail(FaradayError(.readTimeout, "No response bytes arrived within the read timeout."))
            }
        }
        context.read()
    }

    /// An idle connection reads too, so that a server's close is seen before the next request.
    func becomeIdle() { read() }

    /// Fails `exchange` with `error` and closes the connection, if that exchange still runs here
    /// (a call that cancels late must not end the next call on its connection).
    func fail(_ exchange: Exchange, with error: any Error) {
        guard self.exchange === exchange else { return }
        fail(error)
    }

    /// Fails the exchange with `error` and closes the connection.
    private func fail(_ error: any Error) {
        let exchange = self.exchange
        finishExchange(reusable: false)
        exchange?.fail(error)
        context?.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        readTimer?.cancel()
        readTimer = nil
        guard let exchange else {
            // Bytes on an idle connection: nothing asked for them; the connection cannot be trusted.
            context.close(promise: nil)
            return
        }
        switch unwrapInboundIn(data) {
        case .head(let head):
            keepAlive = keepAlive && head.isKeepAlive
            exchange.receive(head)
        case .body(let part):
            if !exchange.receive(part) {
                finishExchange(reusable: false)
                context.close(promise: nil)
            }
        case .end:
            let reusable = keepAlive && requestSent
            finishExchange(reusable: reusable)
            exchange.finish()
            if !reusable { context.close(promise: nil) }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        isReading = false
        // Idle, a read stays outstanding to see the server's close; streamed, the next read waits
        // for the consumer.
        if exchange?.wantsMore ?? true { read() }
    }

    func channelInactive(context: ChannelHandlerContext) {
        isClosed = true
        readTimer?.cancel()
        if let exchange {
            finishExchange(reusable: false)
            exchange.fail(
                FaradayError(.connectionFailed, "The server closed the connection before the response was complete.")
            )
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(error)
    }

    private func finishExchange(reusable: Bool) {
        readTimer?.cancel()
        readTimer = nil
        exchange = nil
        let end = self.end
        self.end = nil
        end?(reusable && !isClosed)
    }
}
