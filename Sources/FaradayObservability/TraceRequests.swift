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

        public func build(app: any App) -> any App { TraceRequests(app: app, handler: self) }
    }

    public func call(_ env: Env) async throws -> Completions {
        let tracer = handler.tracer ?? InstrumentationSystem.tracer
        // No tracer bootstrapped: a span of it records nothing and injects nothing, so the call
        // passes through without one (no redacted URL, monitor or closures made for nothing).
        if tracer is NoOpTracer { return try await app.call(env) }
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
        var env = env
        tracer.inject(span.context, into: &env.request.headers, using: HTTPFieldsInjector())
        let events = SpanEvents(span: span, redaction: handler.redaction)
        env.monitorEvents(with: events)
        do {
            let completions = try await ServiceContext.$current.withValue(span.context) { [env] in
                try await app.call(env)
            }
            let head = completions.head
            if let status = head.status {
                span.attributes["http.response.status_code"] = status.code
                if status.code >= 500 { span.setStatus(SpanStatus(code: .error)) }
            }
            events.recordResendCount()
            if let cache = head.cacheStatus { span.attributes["faraday.cache.status"] = cache.rawValue }
            return completions.onComplete { env in if env.isFinal { span.end() } }.mapErrors { error in
                Self.fail(span, error)
                return error
            }
        } catch {
            events.recordResendCount()
            Self.fail(span, error)
            throw error
        }
    }

    private static func fail(_ span: any Span, _ error: any Error) {
        span.recordError(error)
        span.setStatus(SpanStatus(code: .error))
        if let error = error as? FaradayError { span.attributes["error.type"] = "\(error.code)" }
        span.end()
    }
}

/// Records the retries and redirects of one call as events of its span.
private struct SpanEvents: EventMonitor {
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
        let count = resends.withLock { $0 }
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
