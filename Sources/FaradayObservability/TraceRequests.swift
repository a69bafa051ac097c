#if Observability
import Faraday
import Foundation
import HTTPTypes
import Tracing

/// Wraps each call in a client span of swift-distributed-tracing and propagates its context in
/// the request headers, so that the server's spans join the trace.
///
/// ```swift
/// builder.use(TraceRequests.Handler())   // the tracer bootstrapped in InstrumentationSystem
/// ```
///
/// The span is named after the method (`GET`), a child of the task's current `ServiceContext`,
/// and carries the OpenTelemetry HTTP attributes (`http.request.method`, `url.full`,
/// `server.address`, `server.port`, `http.response.status_code`). A 5xx status or a failure
/// marks it as an error. `url.full` never carries credentials: as OpenTelemetry's conventions
/// require, user info and credential query values (signatures and keys of signed URLs too) are
/// recorded as `REDACTED` (``Handler/redaction``). The context is injected by the tracer's own propagation: with
/// swift-otel that is the W3C `traceparent` header. A streamed response's span ends with its
/// last frame; a call that fails or is abandoned ends it as an error.
///
/// One span per call: placed above `Retry` and `FollowRedirects`, the call's attempts and
/// redirects are events of its span (`retry` with `faraday.attempt` and
/// `faraday.retry.delay_ms`; `redirect` with `http.response.status_code` and the redacted
/// `url.full` it leads to), and `http.request.resend_count` counts them, as OpenTelemetry's
/// HTTP conventions name it. Placed below them, each attempt is a span of its own. The layers
/// and the adapter below run with the span as their `ServiceContext`, so the spans they start
/// are its children (up to the response head: hooks run later, as the consumer pulls);
/// AsyncHTTPClientAdapter starts none of its own (AsyncHTTPClient's span would repeat this one).
public struct TraceRequests: Middleware {
    /// The app below.
    public let app: any App
    /// The handler's settings.
    public let handler: Handler

    /// Builds ``TraceRequests``.
    public struct Handler: Faraday.Handler {
        /// The tracer; `nil` for the one bootstrapped in `InstrumentationSystem`.
        public var tracer: (any Tracer)?
        /// What `url.full` hides; OpenTelemetry's `REDACTED` stands for each hidden value.
        public var redaction: Redaction

        /// Creates the handler.
        public init(tracer: (any Tracer)? = nil, redaction: Redaction = Redaction(replacement: "REDACTED")) {
            self.tracer = tracer
            self.redaction = redaction
        }

        public func build(app: any App) -> any Middleware { TraceRequests(app: app, handler: self) }
    }

    /// Starts the call's span, this layer's state for the call, and injects its context into the
    /// request's headers. With no tracer bootstrapped (a span of it would record nothing and inject
    /// nothing) the call passes through without one.
    public func onRequest(_ env: inout Env) -> CallSpan? {
        let tracer = handler.tracer ?? InstrumentationSystem.tracer
        if tracer is NoOpTracer { return nil }
        let url = env.request.url
        let span = tracer.startAnySpan(
            env.request.method.rawValue,
            context: ServiceContext.current ?? .topLevel,
            ofKind: .client
        )
        span.attributes["http.request.method"] = env.request.method.rawValue
        span.attributes["url.full"] = handler.redaction.redacting(url)
        if let host = url.host { span.attributes["server.address"] = host }
        if let port = url.port ?? (url.scheme == "https" ? 443 : url.scheme == "http" ? 80 : nil) {
            span.attributes["server.port"] = port
        }
        tracer.inject(span.context, into: &env.request.headers, using: HTTPFieldsInjector())
        let call = CallSpan(span: span, events: SpanEvents(span: span, redaction: handler.redaction))
        env.monitorEvents(with: call.events)
        env[CallSpanKey.self] = call
        return call
    }

    /// Runs the layers below with the span as their `ServiceContext`, and records the head.
    public func call(_ env: Env) async throws(FaradayError) -> Completions {
        // `env` is this layer's own: the span its `onRequest` started is the one under the key.
        guard let call = env[CallSpanKey.self] else { return try await app.call(env) }
        let completions: Completions
        do {
            completions = try await ServiceContext.$current.withValue(call.span.context) { [app] in
                try await app.call(env)
            }
        } catch {
            call.events.recordResendCount()
            // `withValue` rethrows untyped what `app.call` threw, a FaradayError.
            throw FaradayError.wrapping(error, request: env.request)
        }
        let head = completions.head
        if let status = head.status {
            call.span.attributes["http.response.status_code"] = status.code
            if status.code >= 500 { call.span.setStatus(SpanStatus(code: .error)) }
        }
        call.events.recordResendCount()
        if let cache = head.cacheStatus { call.span.attributes["faraday.cache.status"] = cache.rawValue }
        return completions
    }

    /// Ends the span with the final completion.
    public func onComplete(_ env: inout Env, state call: CallSpan?) {
        if env.isFinal { call?.span.end() }
    }

    /// Ends the span as an error.
    public func onError(_ error: FaradayError, env: Env, state call: CallSpan??) {
        guard let call = call ?? nil else { return }
        Self.fail(call.span, error)
    }

    private static func fail(_ span: any Span, _ error: any Error) {
        span.recordError(error)
        span.setStatus(SpanStatus(code: .error))
        if let error = error as? FaradayError { span.attributes["error.type"] = "\(error.code)" }
        span.end()
    }
}

extension TraceRequests {
    /// One call's span in a ``TraceRequests``, and the monitor that records its retries and
    /// redirects.
    public struct CallSpan: Sendable {
        let span: any Span
        let events: SpanEvents
    }
}

/// Hands a call's span from ``TraceRequests/onRequest(_:)`` to its `call`.
private enum CallSpanKey: EnvKey { typealias Value = TraceRequests.CallSpan }

/// Records the retries and redirects of one call as events of its span.
struct SpanEvents: EventMonitor {
    let span: any Span
    let redaction: Redaction
    /// The requests sent again: one per retry and per redirect.
    private let resends = Locked(0)

    init(span: any Span, redaction: Redaction) {
        self.span = span
        self.redaction = redaction
    }

    /// Sets `http.request.resend_count` when the call sent any request again.
    func recordResendCount() {
        let count = resends.snapshot
        if count > 0 { span.attributes["http.request.resend_count"] = count }
    }

    func retryScheduled(_ call: CallInfo, attempt: Int, delay: Duration) {
        resends.withLock { $0 += 1 }
        let milliseconds = delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000
        span.addEvent(
            SpanEvent(
                name: "retry",
                attributes: ["faraday.attempt": .int64(Int64(attempt)), "faraday.retry.delay_ms": .int64(milliseconds)]
            )
        )
    }

    func redirected(_ call: CallInfo, to redirect: FollowRedirects.Redirect) {
        resends.withLock { $0 += 1 }
        span.addEvent(
            SpanEvent(
                name: "redirect",
                attributes: [
                    "http.response.status_code": .int64(Int64(redirect.status)),
                    "url.full": .string(redaction.redacting(redirect.to)),
                ]
            )
        )
    }
}

/// Writes context values as request headers.
struct HTTPFieldsInjector: Injector {
    func inject(_ value: String, forKey key: String, into fields: inout HTTPFields) {
        guard let name = HTTPField.Name(key) else { return }
        fields[name] = value
    }
}
#endif
