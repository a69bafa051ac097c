#if Observability
import Faraday
import Foundation
import Metrics

/// An `EventMonitor` that records swift-metrics: calls, failures, durations, attempts and
/// body bytes. Use it with `Instrumentation`.
///
/// ```swift
/// builder.use(Instrumentation.Handler(monitors: [MetricsMonitor()]))
/// ```
///
/// | metric | kind | dimensions |
/// |---|---|---|
/// | `faraday.requests` | counter | `method`, `status` |
/// | `faraday.failures` | counter | `method`, `error` |
/// | `faraday.duration` | timer (nanoseconds) | `method` |
/// | `faraday.retries` | counter | `method` |
/// | `faraday.redirects` | counter | `method` |
/// | `faraday.response.bytes` | counter | `method` |
public struct MetricsMonitor: EventMonitor {
    /// The start of every metric's label.
    public var prefix: String
    private let factory: any MetricsFactory

    /// Creates a monitor.
    ///
    /// - Parameters:
    ///   - prefix: the start of every label.
    ///   - factory: where metrics go; by default the one bootstrapped in `MetricsSystem`.
    public init(prefix: String = "faraday", factory: any MetricsFactory = MetricsSystem.factory) {
        self.prefix = prefix
        self.factory = factory
    }

    public func callFinished(_ call: CallInfo, response: ResponseData, bytes: Int) {
        let method = call.request.method.rawValue
        Counter(
            label: "\(prefix).requests",
            dimensions: [("method", method), ("status", "\(response.status.code)")],
            factory: factory
        )
        .increment()
        Counter(label: "\(prefix).response.bytes", dimensions: [("method", method)], factory: factory).increment(
            by: bytes
        )
        record(call)
    }

    public func callFailed(_ call: CallInfo, error: FaradayError) {
        Counter(
            label: "\(prefix).failures",
            dimensions: [("method", call.request.method.rawValue), ("error", "\(error.code)")],
            factory: factory
        )
        .increment()
        record(call)
    }

    public func retryScheduled(_ call: CallInfo, attempt: Int, delay: Duration) {
        Counter(label: "\(prefix).retries", dimensions: [("method", call.request.method.rawValue)], factory: factory)
            .increment()
    }

    public func redirected(_ call: CallInfo, to redirect: FollowRedirects.Redirect) {
        Counter(label: "\(prefix).redirects", dimensions: [("method", call.request.method.rawValue)], factory: factory)
            .increment()
    }

    private func record(_ call: CallInfo) {
        let nanoseconds =
            call.elapsed.components.seconds * 1_000_000_000 + call.elapsed.components.attoseconds / 1_000_000_000
        Metrics.Timer(
            label: "\(prefix).duration",
            dimensions: [("method", call.request.method.rawValue)],
            factory: factory
        )
        .recordNanoseconds(nanoseconds)
    }
}
#endif
