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

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head: writingRequest = true
        case .body: break
        case .end: writingRequest = false
        }
        context.write(data, promise: promise)
        if !writingRequest { handOnHeldEnd(context) }
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
