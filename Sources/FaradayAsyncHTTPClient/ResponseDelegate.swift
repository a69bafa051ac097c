#if AsyncHTTPClient
import AsyncHTTPClient
import Faraday
import FaradayNIO
import NIOCore
import NIOHTTP1

/// Bridges AsyncHTTPClient's delegate callbacks (on the event loop) to async consumers through
/// the ``Exchange`` NIOAdapter uses: the head is handed over once; then each body part goes to a
/// bounded buffer (buffered mode) or to the consumer's queue (streamed mode). AsyncHTTPClient reads
/// on while a streamed consumer is less than ``Exchange/highWatermark`` bytes behind and waits
/// once it is, so memory stays bounded and a slow consumer slows the socket. Bytes sent are
/// reported to the call's progress observers here, bytes received by the exchange.
final class ResponseDelegate: HTTPClientResponseDelegate {
    typealias Response = Void

    /// What the delegate keeps beside the exchange: AsyncHTTPClient's read held for a consumer
    /// that fell behind, a resumption that came before the delegate held it, and the request
    /// bytes sent so far.
    private struct Reads {
        var held: EventLoopPromise<Void>?
        var resumedEarly = false
        var sent: Int64 = 0
    }

    let exchange: Exchange
    private let reads: Locked<Reads>
    private let progress: Env
    /// The request body's length, when known.
    private let uploadLength: Int64?

    init(request: Request, progress: Env) {
        let reads = Locked(Reads())
        self.reads = reads
        self.progress = progress
        self.uploadLength = request.body.length.map(Int64.init)
        self.exchange = Exchange(request: request, progress: progress) {
            let held = reads.withLock { reads -> EventLoopPromise<Void>? in
                guard let held = reads.held else {
                    reads.resumedEarly = true
                    return nil
                }
                reads.held = nil
                return held
            }
            held?.succeed()
        }
    }

    // MARK: AsyncHTTPClient side

    func didSendRequestPart(task: HTTPClient.Task<Void>, _ part: IOData) {
        let sent = reads.withLock { reads in
            reads.sent += Int64(part.readableBytes)
            return reads.sent
        }
        progress.reportProgress(sent: sent, of: uploadLength)
    }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        exchange.receive(head)
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        guard exchange.receive(buffer) else {
            // A buffered body past its limit: the exchange has failed; stop the transfer.
            task.fail(reason: BodyTooLarge(limit: progress.request.options.maxBufferedBodySize))
            return task.eventLoop.makeSucceededVoidFuture()
        }
        guard !exchange.shouldRead() else { return task.eventLoop.makeSucceededVoidFuture() }
        // AsyncHTTPClient hands no part over while the future it was given is pending, so there is
        // one hold at a time, and the exchange's one `readMore` for it completes this promise (or,
        // come first, lets it succeed at once).
        let promise = task.eventLoop.makePromise(of: Void.self)
        let resumed = reads.withLock { reads in
            guard !reads.resumedEarly else {
                reads.resumedEarly = false
                return true
            }
            assert(reads.held == nil, "AsyncHTTPClient handed a part over while a read was held")
            reads.held = promise
            return false
        }
        if resumed { promise.succeed() }
        return promise.futureResult
    }

    func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {
        exchange.fail(error)
        let held = reads.withLock { reads in
            defer { reads.held = nil }
            return reads.held
        }
        held?.fail(error)
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {
        exchange.finish()
    }
}
#endif
