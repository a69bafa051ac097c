#if NIO
import Faraday
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// One request and its response on a connection: the loop side hands in the head and the body's
/// parts as they arrive; the consumer side awaits the head (in buffered mode, the whole body) and
/// then, streamed, takes one part at a time. The socket is read ahead of a streamed consumer up to
/// ``highWatermark`` bytes, and again once it has taken all but ``lowWatermark`` of them, so a
/// slow consumer slows the socket and a fast one never waits for a hop per part. Received bytes
/// are reported to the call's progress observers as they arrive.
///
/// Both NIO adapters use it: NIOAdapter's connection handler, and AsyncHTTPClientAdapter's
/// delegate.
package final class Exchange: Sendable {
    /// The response head, and the whole body in buffered mode.
    package struct Head: Sendable {
        package let head: HTTPResponseHead
        package let body: ByteBuffer?
    }

    private struct State {
        var headWaiter: CheckedContinuation<Head, any Error>?
        var head: HTTPResponseHead?
        var buffered = ByteBuffer()
        /// Parts the consumer has not taken, oldest first, and their bytes.
        var parts = CircularBuffer<ByteBuffer>()
        var queuedBytes = 0
        /// The connection holds its reads until the consumer catches up.
        var readsHeld = false
        var partWaiter: CheckedContinuation<ByteBuffer?, any Error>?
        var isFinished = false
        var failure: (any Error)?
        var received: Int64 = 0
        var expected: Int64?
    }

    /// Bytes a streamed consumer may fall behind before the socket is held back.
    static let highWatermark = 1 << 20
    /// Bytes left unread by the consumer when the socket is read again.
    static let lowWatermark = 256 << 10

    /// How much a read takes from a connection's socket: from 2 KiB, growing while reads fill
    /// the buffer, up to 256 KiB (SwiftNIO's default stops at 64 KiB). A long body then arrives in
    /// a quarter of the reads, parts and wake-ups of its consumer; a connection of small answers
    /// keeps small buffers.
    package static let socketReads = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 2048, maximum: 256 << 10)

    private let state = NIOLockedValueBox(State())
    let streams: Bool
    private let maxBufferedBodySize: Int
    private let request: Request
    private let progress: Env
    /// Asks the connection for more bytes, once reads were held (``shouldRead()`` said no) and
    /// the consumer has caught up; called on the consumer's thread, once for each hold however
    /// many times ``shouldRead()`` said no meanwhile, and never before the first of them.
    let readMore: @Sendable () -> Void

    package init(request: Request, progress: Env, readMore: @escaping @Sendable () -> Void) {
        self.streams = request.options.streaming != nil
        self.maxBufferedBodySize = request.options.maxBufferedBodySize
        self.request = request
        self.progress = progress
        self.readMore = readMore
    }

    // MARK: Consumer side

    /// Waits for the head (and, in buffered mode, the whole body).
    package func head() async throws -> Head {
        try await withCheckedThrowingContinuation { continuation in
            let result = state.withLockedValue { state -> Result<Head, any Error>? in
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

    /// The next body part in streamed mode; `nil` at the end. A part that has arrived already is
    /// handed over without suspending the consumer: when it is behind, it takes the queued parts
    /// one after another at the cost of a lock each.
    package func nextPart() async throws -> ByteBuffer? {
        let (ready, resume) = state.withLockedValue { Self.take(from: &$0) }
        if resume { readMore() }
        if let ready { return try ready.get() }
        return try await withCheckedThrowingContinuation { continuation in
            let (result, resume) = state.withLockedValue { state in
                let taken = Self.take(from: &state)
                if taken.0 == nil { state.partWaiter = continuation }
                return taken
            }
            if resume { readMore() }
            if let result { continuation.resume(with: result) }
        }
    }

    /// The next part, the failure or the end if there is one (`nil` when the consumer must wait),
    /// and whether the connection should now read again.
    private static func take(from state: inout State) -> (Result<ByteBuffer?, any Error>?, Bool) {
        let result: Result<ByteBuffer?, any Error>?
        if let part = state.parts.popFirst() {
            state.queuedBytes -= part.readableBytes
            result = .success(part)
        } else if let failure = state.failure {
            return (.failure(failure), false)
        } else if state.isFinished {
            return (.success(nil), false)
        } else {
            result = nil
        }
        guard state.readsHeld, state.queuedBytes < lowWatermark else { return (result, false) }
        state.readsHeld = false
        return (result, true)
    }

    /// Whether the connection may read on: always for a buffered body; for a streamed one while
    /// the consumer is less than ``highWatermark`` bytes behind (else the read is held, and
    /// ``nextPart()`` asks for it once the consumer has caught up).
    package func shouldRead() -> Bool {
        guard streams else { return true }
        return state.withLockedValue { state in
            guard state.queuedBytes >= Self.highWatermark else { return true }
            state.readsHeld = true
            return false
        }
    }

    // MARK: Loop side

    /// Takes the response head.
    package func receive(_ head: HTTPResponseHead) {
        let expected = TransferProgress.expectedBodyLength(
            method: request.method,
            status: Int(head.status.code),
            contentLength: head.headers.first(name: "content-length")
        )
        progress.reportProgress(received: 0, of: expected)
        let waiter = state.withLockedValue { state -> CheckedContinuation<Head, any Error>? in
            state.head = head
            state.expected = expected
            guard streams else { return nil }
            defer { state.headWaiter = nil }
            return state.headWaiter
        }
        waiter?.resume(returning: Head(head: head, body: nil))
    }

    /// Takes a body part; `false` when the buffered body would pass its limit (the exchange has
    /// failed then).
    package func receive(_ part: ByteBuffer) -> Bool {
        let (received, expected, fits, waiter) = state.withLockedValue { state in
            state.received += Int64(part.readableBytes)
            guard streams else {
                let fits = state.buffered.append(part, upTo: maxBufferedBodySize)
                return (state.received, state.expected, fits, CheckedContinuation<ByteBuffer?, any Error>?.none)
            }
            guard let waiter = state.partWaiter else {
                state.parts.append(part)
                state.queuedBytes += part.readableBytes
                return (state.received, state.expected, true, nil)
            }
            state.partWaiter = nil
            return (state.received, state.expected, true, waiter)
        }
        progress.reportProgress(received: received, of: expected)
        guard fits else {
            fail(BodyTooLarge(limit: maxBufferedBodySize))
            return false
        }
        waiter?.resume(returning: part)
        return true
    }

    /// The end of the response: every waiter is resumed, the head's with a failure when no head
    /// came (a waiter left waiting would hang the call).
    package func finish() {
        let (headWaiter, partWaiter, head) = state.withLockedValue { state in
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

    /// Fails the exchange with `error` unless it ended already; `true` when it did fail it. Parts
    /// that arrived before are still handed over, then the error.
    @discardableResult
    package func fail(_ error: any Error) -> Bool {
        let (failed, headWaiter, partWaiter) = state.withLockedValue { state in
            guard !state.isFinished, state.failure == nil else {
                return (
                    false, CheckedContinuation<Head, any Error>?.none, CheckedContinuation<ByteBuffer?, any Error>?.none
                )
            }
            state.failure = error
            defer {
                state.headWaiter = nil
                state.partWaiter = nil
            }
            return (true, state.headWaiter, state.partWaiter)
        }
        headWaiter?.resume(throwing: error)
        partWaiter?.resume(throwing: error)
        return failed
    }

    static let endedWithoutHead = FaradayError(.invalidResponse, "The response ended without a head.")

    /// Whether a consumer waits for the head now, for tests.
    package var isWaitingForHead: Bool { state.withLockedValue { $0.headWaiter != nil } }
}
#endif
