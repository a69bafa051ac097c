import Foundation

extension Response {
    /// Runs the call and blocks the current thread until it finishes, for synchronous callers.
    ///
    /// It blocks only the calling thread; never call it from a Swift concurrency task, where it
    /// would hold a thread of the shared pool. On a thread of the adapter's own (an event loop
    /// of ``NIOAdapter`` or AsyncHTTPClient, where their callbacks run) it throws
    /// ``FaradayError/Code/wouldDeadlock`` at once, without starting the call: the call would
    /// need the very thread it blocks.
    ///
    /// - Parameter timeout: how long to wait; on expiry the call is cancelled and
    ///   ``FaradayError/Code/callTimeout`` thrown. `nil` waits as long as the call takes.
    @available(*, noasync, message: "wait(timeout:) blocks its thread; use `try await response.value` in async code")
    public func wait(timeout: Duration? = nil) throws(FaradayError) -> Env {
        if adapter?.ownsCurrentThread() == true {
            throw FaradayError(
                .wouldDeadlock,
                "wait() was called on a thread of the adapter's own (an event loop), which the call needs: "
                    + "await the response instead, or wait from another thread.",
                method: request.method,
                url: request.url
            )
        }
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
}
