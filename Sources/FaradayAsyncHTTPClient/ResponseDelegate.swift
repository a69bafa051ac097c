import AsyncHTTPClient
import Faraday
import FaradayNIO
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1

/// Bridges AsyncHTTPClient's delegate callbacks (on the event loop) to async consumers.
///
/// The head is handed over once; then each body part is either appended to a bounded buffer
/// (buffered mode) or handed to the consumer one at a time (streamed mode): AsyncHTTPClient reads
/// the next part only once the consumer has taken the previous one, so memory stays bounded and a
/// slow consumer slows the socket. Bytes sent and received are reported to the call's progress
/// observers as they pass.
final class ResponseDelegate: HTTPClientResponseDelegate {
    typealias Response = Void

    struct Head: Sendable {
        let head: HTTPResponseHead
        /// The whole body, in buffered mode.
        let body: ByteBuffer?
    }

    private struct State {
        var headWaiter: CheckedContinuation<Head, any Error>?
        var head: HTTPResponseHead?
        var buffered = ByteBuffer()
        /// A part the consumer has not taken yet, and the promise that lets AsyncHTTPClient read on
        /// (completed already when the transfer failed).
        var pending: (ByteBuffer, EventLoopPromise<Void>?)?
        var partWaiter: CheckedContinuation<ByteBuffer?, any Error>?
        var isFinished = false
        var failure: (any Error)?
        var sent: Int64 = 0
        var received: Int64 = 0
        var expected: Int64?
    }

    private let state = Locked(State())
    private let streams: Bool
    private let maxBufferedBodySize: Int
    private let progress: Env
    /// The request body's length, when known.
    private let uploadLength: Int64?
    private let method: HTTPRequest.Method

    init(streams: Bool, request: Request, progress: Env) {
        self.streams = streams
        self.maxBufferedBodySize = request.options.maxBufferedBodySize
        self.progress = progress
        self.uploadLength = request.body.length.map(Int64.init)
        self.method = request.method
    }

    // MARK: Consumer side

    /// Waits for the head (and, in buffered mode, the whole body).
    func head() async throws -> Head {
        try await withCheckedThrowingContinuation { continuation in
            let result = state.withLock { state -> Result<Head, any Error>? in
                if let failure = state.failure { return .failure(failure) }
                if let head = state.head, streams || state.isFinished {
                    return .success(Head(head: head, body: streams ? nil : state.buffered))
                }
                if state.isFinished { return .failure(Self.endedWithoutHead) }
                state.headWaiter = continuation
                return nil
            }
            if let result { continuation.resume(with: result) }
        }
    }

    /// The next body part in streamed mode; `nil` at the end.
    func nextPart() async throws -> ByteBuffer? {
        try await withCheckedThrowingContinuation { continuation in
            let (result, promise) = state.withLock {
                state -> (Result<ByteBuffer?, any Error>?, EventLoopPromise<Void>?) in
                if let (part, promise) = state.pending {
                    state.pending = nil
                    return (.success(part), promise)
                }
                if let failure = state.failure { return (.failure(failure), nil) }
                if state.isFinished { return (.success(nil), nil) }
                state.partWaiter = continuation
                return (nil, nil)
            }
            promise?.succeed()
            if let result { continuation.resume(with: result) }
        }
    }

    // MARK: AsyncHTTPClient side

    func didSendRequestPart(task: HTTPClient.Task<Void>, _ part: IOData) {
        let sent = state.withLock { state in
            state.sent += Int64(part.readableBytes)
            return state.sent
        }
        progress.reportProgress(sent: sent, of: uploadLength)
    }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        let expected = TransferProgress.expectedBodyLength(
            method: method,
            status: Int(head.status.code),
            contentLength: head.headers.first(name: "content-length")
        )
        progress.reportProgress(received: 0, of: expected)
        let waiter = state.withLock { state -> CheckedContinuation<Head, any Error>? in
            state.head = head
            state.expected = expected
            guard streams else { return nil }
            defer { state.headWaiter = nil }
            return state.headWaiter
        }
        waiter?.resume(returning: Head(head: head, body: nil))
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let (received, expected) = state.withLock { state in
            state.received += Int64(buffer.readableBytes)
            return (state.received, state.expected)
        }
        progress.reportProgress(received: received, of: expected)
        guard streams else {
            let fits = state.withLock { $0.buffered.append(buffer, upTo: maxBufferedBodySize) }
            if !fits { task.fail(reason: BodyTooLarge(limit: maxBufferedBodySize)) }
            return task.eventLoop.makeSucceededVoidFuture()
        }
        let promise = task.eventLoop.makePromise(of: Void.self)
        let waiter = state.withLock { state -> CheckedContinuation<ByteBuffer?, any Error>? in
            guard let waiter = state.partWaiter else {
                state.pending = (buffer, promise)
                return nil
            }
            state.partWaiter = nil
            return waiter
        }
        if let waiter {
            promise.succeed()
            waiter.resume(returning: buffer)
        }
        return promise.futureResult
    }

    func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {
        let (headWaiter, partWaiter, promise) = state.withLock { state in
            state.failure = state.failure ?? error
            defer {
                state.headWaiter = nil
                state.partWaiter = nil
            }
            // A part that arrived before the error is still handed over, then the error.
            let promise = state.pending?.1
            state.pending?.1 = nil
            return (state.headWaiter, state.partWaiter, promise)
        }
        headWaiter?.resume(throwing: error)
        partWaiter?.resume(throwing: error)
        promise?.fail(error)
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {
        finish()
    }

    /// The end of the transfer: every waiter is resumed, the head waiter with a failure when no
    /// head came (AsyncHTTPClient ends a request with neither head nor error only by mistake, and
    /// a waiter left waiting would hang the call).
    func finish() {
        let (headWaiter, partWaiter, head) = state.withLock { state in
            state.isFinished = true
            defer {
                state.headWaiter = nil
                state.partWaiter = nil
            }
            let head = state.head.map { Head(head: $0, body: streams ? nil : state.buffered) }
            return (state.headWaiter, state.partWaiter, head)
        }
        if let headWaiter {
            if let head {
                headWaiter.resume(returning: head)
            } else {
                headWaiter.resume(throwing: Self.endedWithoutHead)
            }
        }
        partWaiter?.resume(returning: nil)
    }

    static let endedWithoutHead = FaradayError(.invalidResponse, "The transfer ended without a response head.")

    /// Whether a consumer waits for the head now, for tests.
    var isWaitingForHead: Bool { state.withLock { $0.headWaiter != nil } }
}
