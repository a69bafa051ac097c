#if AsyncHTTPClient
import NIOCore
import NIOHTTP1

/// Sits between AsyncHTTPClient's HTTP/1.1 codec and its request handler on every connection,
/// and hands on the end of a `2xx` answer that came before its request was written whole only once
/// the request's end is written: the call then ends when both its request and its answer have, as
/// curl's do.
///
/// AsyncHTTPClient 1.37 reports a connection whose answer ended first idle when the request's end
/// has been written, from the event loop of the call's delegate (often another loop), hopping back;
/// a close read in between (a keep-alive timeout falling then) made its pool drop the connection
/// first, and the late report stopped the process ("A connection that we don't know was
/// released?"). With the answer's end held, the connection is reported idle on its own loop as the
/// answer ends, as after any other answer. An answer of `300` or more is not held: AsyncHTTPClient
/// stops sending the body and closes the connection at that answer's end.
///
/// It also closes the connection when the server closes its side (the adapter allows remote
/// half-closure so that the close comes here first), but not before the request's end is written
/// when it holds an answer's end and the request's `Content-Length` body went out whole. A server
/// that closes as soon as it answers (gunicorn's sync workers, nginx at `keepalive_requests`) has
/// then read the whole request, and the end AsyncHTTPClient has still to mark sent writes no byte;
/// AsyncHTTPClient 1.37 failed such a call with `remoteConnectionClosed` and lost its answer.
///
/// Its state is touched on the channel's loop only, as NIO calls handlers.
final class AnswerEndAfterRequestEnd: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = HTTPClientRequestPart

    /// A request's head went out and its end has not.
    private var writingRequest = false
    /// The status of the answer being read, once its final (not `1xx`) head came.
    private var answerStatus: UInt?
    /// The end of an answer that came while its request was being written.
    private var heldEnd: NIOAny?
    /// The request's `Content-Length`, when it has one, and the body bytes written so far.
    private var requestLength: Int?
    private var requestBytesWritten = 0
    /// The server closed its side while an answer's end was held and the request's body had gone
    /// out whole: the connection closes after the request's end, or at this deadline.
    private var closeAfterRequestEnd: Scheduled<Void>?

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            writingRequest = true
            requestLength = head.headers.first(name: "content-length").flatMap { Int($0) }
            requestBytesWritten = 0
        case .body(let part):
            requestBytesWritten += part.readableBytes
        case .end:
            writingRequest = false
        }
        context.write(data, promise: promise)
        guard !writingRequest else { return }
        handOnHeldEnd(context)
        if let close = closeAfterRequestEnd {
            close.cancel()
            closeAfterRequestEnd = nil
            // On the next turn of the loop: AsyncHTTPClient ends the call when the end it is
            // writing now is flushed.
            context.eventLoop.assumeIsolated().execute { context.close(promise: nil) }
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard (event as? ChannelEvent) == .inputClosed else { return context.fireUserInboundEventTriggered(event) }
        // The server closed its side: close ours, as NIO does when half-closure is not allowed,
        // unless the request's end is all that is left to write for an answer that came whole.
        guard heldEnd != nil, let length = requestLength, requestBytesWritten == length else {
            return context.close(promise: nil)
        }
        closeAfterRequestEnd = context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(1)) {
            self.closeAfterRequestEnd = nil
            context.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        handOnHeldEnd(context)
        switch unwrapInboundIn(data) {
        case .head(let head) where head.status.code >= 200:
            answerStatus = head.status.code
        case .end:
            defer { answerStatus = nil }
            if writingRequest, let status = answerStatus, (200..<300).contains(status) {
                heldEnd = data
                return
            }
        default:
            break
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        handOnHeldEnd(context)
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        closeAfterRequestEnd?.cancel()
        closeAfterRequestEnd = nil
        handOnHeldEnd(context)
        context.fireChannelInactive()
    }

    private func handOnHeldEnd(_ context: ChannelHandlerContext) {
        guard let end = heldEnd else { return }
        heldEnd = nil
        context.fireChannelRead(end)
    }
}
#endif
