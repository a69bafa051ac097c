#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A deadline for a whole call: sending, waiting and reading, every frame of a stream included.
///
/// Where it sits decides what it bounds: above ``Retry`` it bounds all attempts and waits
/// together, below it each attempt. It works on top of the adapter's connect, read and write
/// timeouts (``RequestOptions``), whichever comes first.
///
/// ```swift
/// builder.use(Timeout.Handler(.seconds(10)))   // the whole call, retries included
/// var retry = Retry.Handler()
/// retry.errors.insert(.callTimeout)             // retry an attempt past its deadline
/// builder.use(retry)
/// builder.use(Timeout.Handler(.seconds(3)))    // each attempt
/// ```
///
/// A call past its deadline is stopped down to the adapter and fails with
/// ``FaradayError/Code/callTimeout``.
public struct Timeout: Middleware {
    /// The app below.
    public let app: any App
    /// The handler's settings.
    public let handler: Handler

    /// Builds ``Timeout``.
    public struct Handler: Faraday.Handler {
        /// The deadline, from the moment the call reaches this layer.
        public var duration: Duration

        /// Creates the handler.
        public init(_ duration: Duration) {
            self.duration = duration
        }

        public func build(app: any App) -> any Middleware { Timeout(app: app, handler: self) }
    }

    public func call(_ env: Env) async throws(FaradayError) -> Completions {
        let attempt = env.forAttempt()
        let deadline = Deadline(after: handler.duration, cancelling: attempt.cancellation)
        let timeout = { @Sendable (error: FaradayError) -> FaradayError in
            guard deadline.hasPassed, error.code == .cancelled, !env.isCancelled else { return error }
            return FaradayError(
                .callTimeout,
                "The call took longer than its \(handler.duration) deadline.",
                method: env.request.method,
                url: env.request.url,
                underlying: error
            )
        }
        let completions: Completions
        do {
            completions = try await app.call(attempt)
        } catch {
            deadline.stop()
            throw timeout(error)
        }
        return completions.onComplete { env in if env.isFinal { deadline.stop() } }.mapErrors { error in
            deadline.stop()
            return timeout(error)
        }
    }
}
