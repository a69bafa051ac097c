import Faraday
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// One request and its response on a connection: the loop side hands in the head and the body's
/// parts as they arrive; the consumer side awaits the head (in buffered mode, the whole body) and
/// then, streamed, takes one part at a time. A streamed part is read from the socket only once the
/// consumer took the previous ones, so a slow consumer slows the socket.
final class Exchange: Sendable {
    /// The response head, and the whole body in buffered mode.
    struct Head: Sendable {
        let head: HTTPResponseHead
        let body: ByteBuffer?
    }

    private struct State {
        var headWaiter: CheckedContinuation<Head, any Error>?
        var head: HTTPResponseHead?
        var buffered = ByteBuffer()
        /// Parts the consumer has not taken, oldest first (rarely more than one).
        var parts: [ByteBuffer] = []
        var partWaiter: CheckedContinuation<ByteBuffer?, any Error>?
        var isFinished = false
        var failure: (any Error)?
        var received: Int64 = 0
        var expected: Int64?
    }

    private let state = NIOLockedValueBox(State())
    let streams: Bool
    private let maxBufferedBodySize: Int
    private let request: Request
    private let progress: Env
    /// Asks the connection for more bytes (on the loop); set by the connection's handler.
    let readMore: @Sendable () -> Void

    init(request: Request, progress: Env, readMore: @escaping @Sendable () -> Void) {
        self.streams = request.options.streaming != nil
        self.maxBufferedBodySize = request.options.maxBufferedBodySize
        self.request = request
        self.progress = progress
        self.readMore = readMore
    }

    // MARK: Consumer side

    /// Waits for the head (and, in buffered mode, the whole body).
    func head() async throws -> Head {
        try await withCheckedThrowingContinuation { continuation in
            let result = state.withLockedValue { state -> Result<Head, any Error>? in
                if let failure = state.failure { return .failure(failure) }
                if let head = state.head, streams || state.isFinished {
                    return .success(Head(head: head, body: streams ? nil : state.buffered))
                }
                state.headWaiter = continuation
                return nil
            }
            if let result { continuation.resume(with: result) }
        }
    }

    /// The next body part in streamed mode; `nil` at the end.
    func nextPart() async throws -> ByteBuffer? {
        try await withCheckedThrowingContinuation { continuation in
            let (result, wantsMore) = state.withLockedValue { state -> (Result<ByteBuffer?, any Error>?, Bool) in
                if !state.parts.isEmpty {
                    let part = state.parts.removeFirst()
                    return (.success(part), state.parts.isEmpty && !state.isFinished && state.failure == nil)
                }
                if let failure = state.failure { return (.failure(failure), false) }
                if state.isFinished { return (.success(nil), false) }
                state.partWaiter = continuation
                return (nil, true)
            }
            if wantsMore { readMore() }
            if let result { continuation.resume(with: result) }
        }
    }

    /// Whether the consumer has taken every part that arrived (the loop reads on only then).
    var wantsMore: Bool {
        state.withLockedValue { !streams || ($0.parts.isEmpty && !$0.isFinished) }
    }

    // MARK: Loop side

    func receive(_ head: HTTPResponseHead) {
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
    func receive(_ part: ByteBuffer) -> Bool {
        let (received, expected, fits, waiter) = state.withLockedValue { state in
            state.received += Int64(part.readableBytes)
            guard streams else {
                let fits = state.buffered.append(part, upTo: maxBufferedBodySize)
                return (state.received, state.expected, fits, CheckedContinuation<ByteBuffer?, any Error>?.none)
            }
            guard let waiter = state.partWaiter else {
                state.parts.append(part)
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

    /// The end of the response: every waiter is resumed.
    func finish() {
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
    func fail(_ error: any Error) -> Bool {
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

    /// Whether the response ended in full (not failed).
    var isComplete: Bool { state.withLockedValue { $0.isFinished && $0.failure == nil } }

    static let endedWithoutHead = FaradayError(.invalidResponse, "The connection ended without a response head.")
}
