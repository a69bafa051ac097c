#if URLSession
import Foundation
import HTTPTypes

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The state of one URLSession task, between the delegate's callbacks and the async consumer.
///
/// In buffered mode the body accumulates up to a limit. In streamed mode it queues in order. On
/// Apple platforms, past ``highWatermark`` queued bytes the task is suspended until the consumer
/// drains the queue below ``lowWatermark``, so a slow consumer slows the transfer. On Linux,
/// FoundationNetworking cannot pause a running transfer (suspending one traps), so the queue may
/// grow up to `maxBufferedBodySize`; past that the call fails with
/// ``FaradayError/Code/bodyTooLarge`` instead of growing without bound.
final class URLSessionTaskBridge: Sendable {
    static let highWatermark = 1 << 20
    static let lowWatermark = 1 << 18

    struct Head: Sendable {
        let response: HTTPURLResponse
        /// The whole body, in buffered mode.
        let body: Data?
        /// The HTTP version (`"1.1"`, `"2"`), where the platform told it before the head was
        /// handed over: Apple platforms' task metrics, for a buffered response.
        var httpVersion: String? = nil
    }

    private struct State {
        var task: URLSessionTask?
        /// Cancels the task on the session's delegate queue, if it is still running there.
        var cancelTask: (@Sendable () -> Void)?
        var response: HTTPURLResponse?
        var headWaiter: CheckedContinuation<Head, any Error>?
        var body = Data()
        var queue = PartQueue()
        var isSuspended = false
        var partWaiter: CheckedContinuation<Data?, any Error>?
        var isFinished = false
        var failure: (any Error)?
        var lastActivity = ContinuousClock.now
        var received: Int64 = 0
        var expected: Int64?
        /// The HTTP version the task metrics named.
        var httpVersion: String?
    }

    /// What ``fail(_:)`` resumes and runs once the lock is released.
    private struct Waiters {
        let head: CheckedContinuation<Head, any Error>?
        let part: CheckedContinuation<Data?, any Error>?
        let cancelTask: (@Sendable () -> Void)?
    }

    private let state = Locked(State())
    let streams: Bool
    let maxBufferedBodySize: Int
    /// The TLS options and pins the server-trust challenge applies.
    let tls: TLSOptions
    let pinning: PinningPolicy?
    /// A file to delete when the task ends (a spooled upload).
    let temporaryFile: URL?
    /// Where progress is reported.
    private let progress: Env
    private let method: HTTPRequest.Method
    /// The request body's length, when known.
    private let uploadLength: Int64?

    init(env: Env, temporaryFile: URL?) {
        let options = env.request.options
        self.progress = env
        self.method = env.request.method
        self.uploadLength = env.request.body.length.map(Int64.init)
        self.streams = options.streaming != nil
        self.maxBufferedBodySize = options.maxBufferedBodySize
        self.tls = options.tls
        self.pinning = options.pinning
        self.temporaryFile = temporaryFile
    }

    /// Takes the task and the way to cancel it. FoundationNetworking traps when a cancel reaches
    /// a task it has taken out of its registry ("a task that in not in the registry"), which it
    /// does right after running the task's ending on the delegate queue. So a cancel goes to the
    /// delegate queue too, behind any ending already queued there, and reaches the task only
    /// while `isRunning` says the delegate has not seen its end. (Seen trapping about once in
    /// 120 cancelled downloads when the bridge cancelled from the consumer's thread.)
    func attach(
        _ task: URLSessionTask,
        delegateQueue: OperationQueue,
        isRunning: @escaping @Sendable () -> Bool
    ) {
        state.withLock { state in
            state.task = task
            state.cancelTask = {
                delegateQueue.addOperation {
                    if isRunning() { task.cancel() }
                }
            }
        }
    }

    /// Fails the task with `error` unless it has ended within `timeout`. The timer holds the
    /// bridge weakly: a call that ended frees its body at once, not when the timer fires.
    func startCallTimer(_ timeout: Duration, error: FaradayError) {
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout.timeInterval) { [weak self] in
            self?.fail(error)
        }
    }

    /// Fails the task with `error` when no bytes arrive for `timeout` while it is reading.
    ///
    /// URLSession's own `timeoutInterval` is not precise below a second on Linux, so the bridge
    /// keeps its own idle timer; the time a slow consumer keeps the task suspended does not count.
    func startIdleTimer(_ timeout: Duration, error: FaradayError) {
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout.timeInterval) { [weak self] in
            guard let self else { return }
            let now = ContinuousClock.now
            let remaining = self.state.withLock { state -> Duration? in
                if state.isFinished || state.failure != nil { return nil }
                if state.isSuspended { state.lastActivity = now }
                let idle = now - state.lastActivity
                return idle >= timeout ? .zero : timeout - idle
            }
            guard let remaining else { return }
            if remaining == .zero {
                self.fail(error)
            } else {
                self.startIdleTimer(remaining, error: error)
            }
        }
    }

    /// Cancels the call: it fails with `cancelled` whatever the task does next (FoundationNetworking
    /// may still complete a task it has been told to cancel), and the task is cancelled once.
    func cancel() { fail(URLError(.cancelled)) }

    // MARK: Consumer side

    func head() async throws -> Head {
        try await withCheckedThrowingContinuation { continuation in
            let result = state.withLock { state -> Result<Head, any Error>? in
                if let failure = state.failure { return .failure(failure) }
                if let response = state.response, streams || state.isFinished {
                    return .success(
                        Head(response: response, body: streams ? nil : state.body, httpVersion: state.httpVersion)
                    )
                }
                if state.isFinished { return .failure(URLError(.badServerResponse)) }
                state.headWaiter = continuation
                return nil
            }
            if let result { continuation.resume(with: result) }
        }
    }

    func nextPart() async throws -> Data? {
        try await withCheckedThrowingContinuation { continuation in
            let (result, taskToResume) = state.withLock { state -> (Result<Data?, any Error>?, URLSessionTask?) in
                if let part = state.queue.popFirst() {
                    var resume: URLSessionTask?
                    if state.isSuspended && state.queue.bytes < Self.lowWatermark {
                        state.isSuspended = false
                        resume = state.task
                    }
                    return (.success(part), resume)
                }
                if let failure = state.failure { return (.failure(failure), nil) }
                if state.isFinished { return (.success(nil), nil) }
                state.partWaiter = continuation
                return (nil, nil)
            }
            taskToResume?.resume()
            if let result { continuation.resume(with: result) }
        }
    }

    // MARK: Delegate side

    func didSend(_ totalBytesSent: Int64) {
        progress.reportProgress(sent: totalBytesSent, of: uploadLength)
    }

    func didReceive(response: HTTPURLResponse) {
        // A body URLSession decodes (or may decode) is counted as decoded: its Content-Length is
        // no total for it.
        let isDecoded =
            URLSessionAdapter.platformDecoding(response.value(forHTTPHeaderField: "Content-Encoding")) != .asSent
        let expected = TransferProgress.expectedBodyLength(
            method: method,
            status: response.statusCode,
            contentLength: isDecoded ? nil : response.value(forHTTPHeaderField: "Content-Length")
        )
        progress.reportProgress(received: 0, of: expected)
        let waiter = state.withLock { state -> CheckedContinuation<Head, any Error>? in
            state.response = response
            state.expected = expected
            state.lastActivity = .now
            guard streams else { return nil }
            defer { state.headWaiter = nil }
            return state.headWaiter
        }
        waiter?.resume(returning: Head(response: response, body: nil))
    }

    /// The task's metrics, collected before its end (Apple platforms only): the protocol its last
    /// transaction negotiated (ALPN's `http/1.1`, `h2`, `h3`).
    func didCollect(networkProtocol: String?) {
        let version = networkProtocol.flatMap(URLSessionAdapter.httpVersion(alpn:))
        state.withLock { $0.httpVersion = version }
    }

    /// The response of a task that ends without having handed it over (see the delegate's
    /// `didCompleteWithError`).
    func didReceiveIfFirst(response: HTTPURLResponse) {
        guard state.withLock({ $0.response == nil }) else { return }
        didReceive(response: response)
    }

    /// Takes a body part; returns `false` when the buffered body, or the queue of a stream whose
    /// consumer fell behind, would exceed `maxBufferedBodySize`.
    func didReceive(data: Data) -> Bool {
        // Parts FoundationNetworking had queued before a cancel or a failure of ours reached it:
        // the call has ended for its consumer, and they go nowhere.
        let counts = state.withLock { state -> (Int64, Int64?)? in
            guard state.failure == nil else { return nil }
            state.received += Int64(data.count)
            return (state.received, state.expected)
        }
        guard let (received, expected) = counts else { return true }
        progress.reportProgress(received: received, of: expected)
        guard streams else {
            return state.withLock { state in
                state.lastActivity = .now
                guard state.body.count + data.count <= maxBufferedBodySize else { return false }
                state.body.append(data)
                return true
            }
        }
        let (waiter, taskToSuspend, fits) = state.withLock {
            state -> (CheckedContinuation<Data?, any Error>?, URLSessionTask?, Bool) in
            state.lastActivity = .now
            if let waiter = state.partWaiter {
                state.partWaiter = nil
                return (waiter, nil, true)
            }
            state.queue.append(data)
            #if canImport(Darwin)
            guard !state.isSuspended, state.queue.bytes >= Self.highWatermark else { return (nil, nil, true) }
            state.isSuspended = true
            return (nil, state.task, true)
            #else
            return (nil, nil, state.queue.bytes <= maxBufferedBodySize)
            #endif
        }
        taskToSuspend?.suspend()
        waiter?.resume(returning: data)
        return fits
    }

    /// Ends the task, successfully when `error` is nil. The first failure recorded wins.
    func didComplete(error: (any Error)?) {
        let (headWaiter, partWaiter, head, failure) = state.withLock { state in
            if let error, state.failure == nil { state.failure = error }
            state.isFinished = true
            defer {
                state.headWaiter = nil
                state.partWaiter = nil
            }
            let head = state.response.map {
                Head(response: $0, body: streams ? nil : state.body, httpVersion: state.httpVersion)
            }
            return (state.headWaiter, state.partWaiter, head, state.failure)
        }
        if let temporaryFile { try? FileManager.default.removeItem(at: temporaryFile) }
        if let failure {
            headWaiter?.resume(throwing: failure)
            partWaiter?.resume(throwing: failure)
            return
        }
        if let headWaiter {
            if let head {
                headWaiter.resume(returning: head)
            } else {
                headWaiter.resume(throwing: URLError(.badServerResponse))
            }
        }
        partWaiter?.resume(returning: nil)
    }

    /// Records a failure of our own (a deadline, a size limit, a cancel), ends the call for its
    /// consumer at once (parts still queued are dropped), and cancels the task, once, unless it
    /// has ended.
    func fail(_ error: any Error) {
        // The first failure (ours, or the task's own at its end) wins; the task is cancelled once.
        let taken = state.withLock { state -> Waiters? in
            guard !state.isFinished, state.failure == nil else { return nil }
            state.failure = error
            state.queue = PartQueue()
            defer {
                state.headWaiter = nil
                state.partWaiter = nil
            }
            return Waiters(head: state.headWaiter, part: state.partWaiter, cancelTask: state.cancelTask)
        }
        guard let taken else { return }
        taken.head?.resume(throwing: error)
        taken.part?.resume(throwing: error)
        taken.cancelTask?()
    }
}
#endif
