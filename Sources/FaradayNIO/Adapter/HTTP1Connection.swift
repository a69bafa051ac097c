#if NIO
import Faraday
import NIOCore
import NIOHTTP1
import NIOSSL

/// One HTTP/1.1 connection: its channel and the handler that runs one exchange on it at a time.
/// `@unchecked Sendable` without a lock: its loop is its lock. Every property is read and written on
/// its channel's event loop only (by `LoopPool`, which checks `preconditionInEventLoop`).
final class HTTP1Connection: @unchecked Sendable {
    let channel: any Channel
    let handler: ResponseHandler
    /// When the connection last went idle, for the pool's idle timeout.
    var idleSince = NIODeadline.now()

    init(channel: any Channel, handler: ResponseHandler) {
        self.channel = channel
        self.handler = handler
    }
}

/// The last handler of a connection's pipeline: hands the response's parts to the running
/// exchange, holds the socket's reads back while a streamed exchange's consumer has parts it has
/// not taken (backpressure), fails the exchange on a read timeout or a dropped connection, and
/// says at the end whether the connection can take another request.
///
/// The channel reads on its own (`autoRead`, NIO's default) and each read passes this handler on
/// its way to the socket, which lets it through or holds it: no socket interest is changed for a
/// response that is read as fast as it comes. An idle connection reads too, so that a server's
/// close is seen before the next request.
///
/// `@unchecked Sendable` without a lock: its loop is its lock. NIO calls it on its channel's loop,
/// and the adapter only from code on that loop (the call under the loop's executor preference, or
/// closures it hands to `loop.execute`), which each entry point asserts (debug builds: the whole
/// conformance suite runs with the check).
final class ResponseHandler: ChannelDuplexHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = HTTPClientRequestPart
    typealias OutboundOut = HTTPClientRequestPart

    /// What happens once the exchange is over: `true` when the connection may be reused.
    typealias End = (_ reusable: Bool) -> Void

    private var context: ChannelHandlerContext?
    private var exchange: Exchange?
    private var end: End?
    private var keepAlive = true
    /// The request's last byte has gone out: only then may the connection be reused.
    private var requestSent = false
    /// A read the channel asked for while the consumer lagged, let through once it catches up.
    private var heldRead = false
    /// The read timeout: a timer that outlives exchanges, looks at the time of the last byte when
    /// it fires and waits again for what is left, so that a busy connection sets one a timeout
    /// rather than one a request.
    private var readTimeout: TimeAmount?
    private var readTimer: (timer: Scheduled<Void>, deadline: NIODeadline)?
    private var lastRead = NIODeadline.now()
    /// The response's body ends with the connection (no length, not chunked): a TLS close without
    /// close_notify may then have cut it, and fails the exchange.
    private var bodyEndsWithClose = false
    /// The connection closed: the pool drops it.
    private(set) var isClosed = false
    /// A byte of the exchange's response has arrived: a failure from now on is not a closed
    /// idle connection's.
    private var responseStarted = false

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    /// Starts an exchange on this idle connection; the request is written by the caller.
    func start(_ exchange: Exchange, readTimeout: TimeAmount?, keepAlive: Bool, end: @escaping End) {
        assertOnLoop()
        self.exchange = exchange
        self.end = end
        self.keepAlive = keepAlive
        self.requestSent = false
        self.responseStarted = false
        self.readTimeout = readTimeout
        bodyEndsWithClose = false
        lastRead = .now()
        // Closed between its release and this exchange (a FIN behind the last response): the
        // call fails at once, and its place is freed.
        guard !isClosed, context?.channel.isActive == true else {
            return fail(
                exchange,
                with: ClosedBeforeResponse(
                    error: FaradayError(.connectionFailed, "The pooled connection was closed by the server.")
                )
            )
        }
        if let readTimeout { armReadTimer(by: lastRead + readTimeout) }
    }

    /// The request's end was written: the wait for the response's bytes starts now.
    func requestEnded() {
        assertOnLoop()
        requestSent = true
        lastRead = .now()
    }

    /// The consumer took every part: lets a held read through.
    func resumeReading() {
        assertOnLoop()
        guard heldRead, let context, !isClosed else { return }
        heldRead = false
        lastRead = .now()
        context.read()
    }

    /// Fails `exchange` with `error` and closes the connection, if that exchange still runs here
    /// (a call that cancels late must not end the next call on its connection).
    func fail(_ exchange: Exchange, with error: any Error) {
        assertOnLoop()
        guard self.exchange === exchange else { return }
        fail(error)
    }

    /// Checks, in debug builds, that the adapter calls in on the channel's loop.
    private func assertOnLoop() {
        context?.eventLoop.assertInEventLoop()
    }

    /// Fails the exchange with `error` and closes the connection.
    private func fail(_ error: any Error) {
        let exchange = self.exchange
        finishExchange(reusable: false)
        exchange?.fail(error)
        context?.close(promise: nil)
    }

    /// Makes sure a read timer fires by `deadline`.
    private func armReadTimer(by deadline: NIODeadline) {
        if let pending = readTimer {
            guard pending.deadline > deadline else { return }
            pending.timer.cancel()
        }
        guard let loop = context?.eventLoop else { return }
        let timer = loop.scheduleTask(deadline: deadline) { [self] in
            readTimer = nil
            guard let readTimeout, exchange != nil else { return }
            // A held read is the consumer's pause, and an upload under way the client's own
            // writing, not the server's silence.
            let due = heldRead || !requestSent ? NIODeadline.now() + readTimeout : lastRead + readTimeout
            if NIODeadline.now() >= due {
                fail(FaradayError(.readTimeout, "No response bytes arrived within the read timeout (\(readTimeout))."))
            } else {
                armReadTimer(by: due)
            }
        }
        readTimer = (timer, deadline)
    }

    // MARK: ChannelHandler

    func read(context: ChannelHandlerContext) {
        if let exchange, !exchange.shouldRead() {
            heldRead = true
            return
        }
        context.read()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let exchange else {
            // Bytes on an idle connection: nothing asked for them; the connection cannot be trusted.
            context.close(promise: nil)
            return
        }
        lastRead = .now()
        responseStarted = true
        switch unwrapInboundIn(data) {
        case .head(let head):
            // After 101 the connection speaks another protocol: never reused for HTTP.
            keepAlive = keepAlive && head.isKeepAlive && head.status != .switchingProtocols
            bodyEndsWithClose =
                !head.headers.contains(name: "content-length")
                && !head.headers[canonicalForm: "transfer-encoding"].contains("chunked")
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

    func channelInactive(context: ChannelHandlerContext) {
        isClosed = true
        readTimer?.timer.cancel()
        readTimer = nil
        if let exchange {
            finishExchange(reusable: false)
            if responseStarted {
                let message = "The server closed the connection before the response was complete."
                exchange.fail(FaradayError(.connectionFailed, message))
            } else {
                exchange.fail(
                    ClosedBeforeResponse(
                        error: FaradayError(.connectionFailed, "The server closed the connection without answering.")
                    )
                )
            }
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A TLS close without close_notify: the close itself decides (a cut body fails there, or
        // the decoder sees a short one), unless the body is framed by the close, which an
        // attacker could then cut unseen (AsyncHTTPClient's rule).
        if case NIOSSLError.uncleanShutdown = error, !(exchange != nil && bodyEndsWithClose) { return }
        // A reset or a broken pipe before the answer's first byte: the peer closed the connection.
        if !responseStarted, error is IOError || error is ChannelError {
            return fail(
                ClosedBeforeResponse(
                    error: FaradayError(.connectionFailed, "The connection failed: \(error).", underlying: error)
                )
            )
        }
        fail(error)
    }

    private func finishExchange(reusable: Bool) {
        exchange = nil
        if heldRead, let context, !isClosed {
            heldRead = false
            context.read()
        }
        let end = self.end
        self.end = nil
        end?(reusable && !isClosed)
    }
}
#endif
