import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Sends a request again when it fails in a way that may pass: a connection error or timeout,
/// or (opt-in) a status such as 429 or 503, waiting between attempts. An attempt cut by a
/// ``Timeout`` below it fails with ``FaradayError/Code/callTimeout``, retried when ``Handler/errors``
/// includes it (not by default: the same code ends a call past ``RequestOptions/timeout``).
///
/// ```swift
/// builder.use(Retry.Handler(maxAttempts: 4, statuses: [429, 503]))
/// ```
///
/// - Only idempotent methods are retried (GET, HEAD, OPTIONS, PUT, DELETE, TRACE) unless
///   ``Handler/methods`` says otherwise or ``Handler/retryIf`` decides.
/// - Waits follow ``Handler/backoff``, or the server's `Retry-After` (seconds or an HTTP date)
///   or `RateLimit-Reset` (seconds), never longer than ``Handler/maxRetryAfter``.
/// - The body is sent again exactly; a one-shot body is never retried: the call fails with
///   ``FaradayError/Code/bodyNotReplayable``, which names the failure it could not retry.
/// - The ``RetryBudget`` shared by the connection stops retry storms.
/// - A discarded response is closed (a streamed one stops its transfer).
/// - Cancelling the call during a wait ends it at once.
///
/// It decides on the response head, before ``RaiseError``'s hook turns a status into an error, so
/// it retries its statuses whether `RaiseError` sits above or below it. Where it sits against
/// other middleware decides whether they see one call or every attempt (<doc:TheMiddlewareStack>).
public struct Retry: Middleware {
    /// The app below.
    public let app: any App
    /// The handler's settings.
    public let handler: Handler

    /// What a retry callback learns.
    public struct Attempt: Sendable {
        /// The attempt that failed (from 1).
        public var number: Int
        /// The request.
        public var request: Request
        /// The error of the failed attempt, if it failed with one.
        public var error: FaradayError?
        /// The response of the failed attempt, if it had one.
        public var response: ResponseData?
        /// The wait before the next attempt (zero when retries are exhausted).
        public var delay: Duration
    }

    /// Builds ``Retry``.
    public struct Handler: Faraday.Handler {
        /// Attempts in all, the first included.
        public var maxAttempts: Int
        /// The waits between attempts.
        public var backoff: Backoff
        /// The longest server-asked wait honoured; longer ones are cut to it.
        public var maxRetryAfter: Duration
        /// The error codes retried.
        public var errors: Set<FaradayError.Code>
        /// The statuses retried.
        public var statuses: Set<Int>
        /// The methods retried when ``retryIf`` is not set.
        public var methods: Set<HTTPRequest.Method>
        /// Decides instead of ``methods`` whether a failed attempt is retried.
        public var retryIf: (@Sendable (Attempt) -> Bool)?
        /// The connection's allowance of retries.
        public var budget: RetryBudget
        /// Called before each retry.
        public var onRetry: (@Sendable (Attempt) -> Void)?
        /// Called when an attempt that could be retried is not, because the attempts or the budget
        /// ran out.
        public var onExhausted: (@Sendable (Attempt) -> Void)?
        /// How a wait is made (tests make it instant).
        public var sleep: @Sendable (Duration) async throws -> Void

        /// The methods that are safe to send twice.
        public static let idempotentMethods: Set<HTTPRequest.Method> = [.get, .head, .options, .put, .delete, .trace]

        /// Creates the handler.
        public init(
            maxAttempts: Int = 3,
            backoff: Backoff = Backoff(),
            maxRetryAfter: Duration = .seconds(60),
            errors: Set<FaradayError.Code> = [.connectionFailed, .connectTimeout, .readTimeout, .writeTimeout],
            statuses: Set<Int> = [],
            methods: Set<HTTPRequest.Method> = Handler.idempotentMethods,
            retryIf: (@Sendable (Attempt) -> Bool)? = nil,
            budget: RetryBudget = RetryBudget(),
            onRetry: (@Sendable (Attempt) -> Void)? = nil,
            onExhausted: (@Sendable (Attempt) -> Void)? = nil,
            sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
        ) {
            self.maxAttempts = max(1, maxAttempts)
            self.backoff = backoff
            self.maxRetryAfter = maxRetryAfter
            self.errors = errors
            self.statuses = statuses
            self.methods = methods
            self.retryIf = retryIf
            self.budget = budget
            self.onRetry = onRetry
            self.onExhausted = onExhausted
            self.sleep = sleep
        }

        public func build(app: any App) -> any Middleware { Retry(app: app, handler: self) }
    }

    public func call(_ env: Env) async throws(FaradayError) -> Completions {
        handler.budget.deposit()
        var number = 1
        while true {
            env.events?.emit { $0.attemptStarted($1, attempt: number) }
            var attemptEnv = env.forAttempt()
            attemptEnv[AttemptKey.self] = number
            var failed = Attempt(number: number, request: env.request, error: nil, response: nil, delay: .zero)
            var completions: Completions?
            do {
                let result = try await app.call(attemptEnv)
                guard let status = result.head.status, handler.statuses.contains(status.code) else { return result }
                completions = result
                failed.response = result.head.response
            } catch let failure {
                guard handler.errors.contains(failure.code), !env.isCancelled else { throw failure }
                failed.error = failure
            }
            guard isRetryable(failed) else { return try finish(completions, failed) }
            guard number < handler.maxAttempts, handler.budget.withdraw() else {
                handler.onExhausted?(failed)
                return try finish(completions, failed)
            }
            guard env.request.body.isReplayable else {
                completions?.discard()
                throw FaradayError(
                    .bodyNotReplayable,
                    "Attempt \(number) failed (\(failed.error.map { "\($0.code)" } ?? "status \(failed.response?.status.code ?? 0)")) and would be retried, but the request body is a one-shot stream that cannot be sent again.",
                    method: env.request.method,
                    url: env.request.url,
                    response: failed.response,
                    underlying: failed.error
                )
            }
            completions?.discard()
            failed.delay = delay(before: number, after: failed.response)
            handler.onRetry?(failed)
            env.events?.emit { [failed] in $0.retryScheduled($1, attempt: failed.number, delay: failed.delay) }
            try await wait(failed.delay, env)
            number += 1
        }
    }

    private func isRetryable(_ attempt: Attempt) -> Bool {
        if let retryIf = handler.retryIf { return retryIf(attempt) }
        return handler.methods.contains(attempt.request.method)
    }

    /// The last attempt's outcome, passed up as it is.
    private func finish(_ completions: Completions?, _ attempt: Attempt) throws(FaradayError) -> Completions {
        if let completions { return completions }
        throw attempt.error ?? FaradayError(.unknown, "The attempt failed without an error.")
    }

    /// The server's wait (`Retry-After`, `RateLimit-Reset`), capped, or the backoff's.
    func delay(before retry: Int, after response: ResponseData?, now: Date = Date()) -> Duration {
        if let asked = response.flatMap({ Self.serverDelay($0.headers, now: now) }) {
            return min(asked, handler.maxRetryAfter)
        }
        return handler.backoff.delay(beforeRetry: retry)
    }

    /// `Retry-After` in seconds or as an HTTP date, else `RateLimit-Reset` in seconds.
    static func serverDelay(_ headers: HTTPFields, now: Date) -> Duration? {
        if let value = headers[.retryAfter]?.trimmingWhitespace() {
            if let seconds = Int(value), seconds >= 0 { return .seconds(seconds) }
            // An HTTP-date (RFC 9110 §5.6.7); an invalid one is no delay of the server's.
            if let date = HTTPDate.parse(value, now: now) {
                return .milliseconds(Int64(max(0, date.timeIntervalSince(now)) * 1000))
            }
        }
        if let name = HTTPField.Name("RateLimit-Reset"), let value = headers[name],
            let seconds = Int(value.trimmingWhitespace()), seconds >= 0
        {
            return .seconds(seconds)
        }
        return nil
    }

    /// Waits, ending at once (with ``FaradayError/Code/cancelled``) if the call is cancelled.
    private func wait(_ delay: Duration, _ env: Env) async throws(FaradayError) {
        let sleep = handler.sleep
        let sleeper = Task { try await sleep(delay) }
        do {
            try await env.cancellation.withCancellationHandler(
                { try await sleeper.value },
                onCancel: { sleeper.cancel() }
            )
        } catch {
            throw FaradayError(
                .cancelled,
                "The request was cancelled while waiting to retry.",
                method: env.request.method,
                url: env.request.url
            )
        }
        try env.cancellation.check()
    }
}

/// Where ``Retry`` numbers its attempts.
enum AttemptKey: EnvKey { typealias Value = Int }

extension Env {
    /// The attempt of a ``Retry`` above this request, from 1: below the `Retry`, the attempt
    /// being sent; on a response (also above it), the attempt that answered. `nil` without a `Retry`.
    public var attempt: Int? { self[AttemptKey.self] }
}
