import Dispatch

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Response {
    /// Runs the call and blocks the current thread until it finishes, for synchronous callers.
    ///
    /// It blocks only the calling thread; never call it from a Swift concurrency task, where it
    /// would hold a thread of the shared pool. On a thread of the adapter's own
    /// (``Adapter/ownsCurrentThread()``: an event loop of `NIOAdapter`, where its callbacks run,
    /// or of AsyncHTTPClient) it throws ``FaradayError/Code/wouldDeadlock`` at once while the
    /// call is unfinished, since the call would need the very thread it blocks; a call nobody
    /// had started then ends with that error, unsent.
    ///
    /// - Parameter timeout: how long to wait; on expiry the call is cancelled and
    ///   ``FaradayError/Code/callTimeout`` thrown. `nil` waits as long as the call takes.
    @available(*, noasync, message: "wait(timeout:) blocks its thread; use `try await response.value` in async code")
    public func wait(timeout: Duration? = nil) throws(FaradayError) -> Env {
        try refuseOnAdapterThread()
        let done = DispatchSemaphore(value: 0)
        let result = Locked<Env?>(nil)
        addCallback { env in
            guard env.isFinal else { return }
            result.withLock { $0 = env }
            done.signal()
        }
        ensureDriver()
        if let timeout {
            if done.wait(timeout: .now() + max(0, timeout.timeInterval)) == .timedOut {
                cancel()
                throw FaradayError(
                    .callTimeout,
                    "The call did not finish within \(timeout).",
                    method: request.method,
                    url: request.url
                )
            }
        } else {
            done.wait()
        }
        guard let env = result.withLock({ $0 }) else {
            throw FaradayError(.unknown, "The call finished without a result.")
        }
        if let error = env.error { throw error }
        return env
    }

    /// Throws ``FaradayError/Code/wouldDeadlock`` when the calling thread is the adapter's and the
    /// call has not finished; a call nobody started ends here with that error, so that it is
    /// never sent (a dropped handle would send it).
    private func refuseOnAdapterThread() throws(FaradayError) {
        guard let adapter = state.withLock({ $0.adapter }), adapter.ownsCurrentThread() else { return }
        enum Verdict { case finished, running, unstarted }
        let verdict = state.withLock { state -> Verdict in
            switch state.phase {
            case .finished: return .finished
            case .running: return .running
            case .notStarted:
                state.phase = .running
                return .unstarted
            }
        }
        guard verdict != .finished else { return }
        let error = FaradayError(
            .wouldDeadlock,
            "wait() was called on a thread of the adapter's own (an event loop), which the call needs: "
                + "await the response instead, or wait from another thread.",
            method: request.method,
            url: request.url
        )
        if verdict == .unstarted { finish(failureEnv(error)) }
        throw error
    }
}
