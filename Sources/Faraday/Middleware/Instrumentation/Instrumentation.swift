import Foundation

/// Reports the life of every call to ``EventMonitor``s, with timings.
///
/// Place it first, so that it sees the whole call; ``Retry`` and ``FollowRedirects`` below it
/// report their attempts and redirects through it.
///
/// ```swift
/// builder.use(Instrumentation.Handler(monitors: [MyMetrics()]))
/// builder.use(Retry.Handler())
/// ```
public struct Instrumentation: Middleware {
    /// The app below.
    public let app: any App
    /// The handler's settings.
    public let handler: Handler

    /// Builds ``Instrumentation``.
    public struct Handler: Faraday.Handler {
        /// Who hears the events.
        public var monitors: [any EventMonitor]

        /// Creates the handler.
        public init(monitors: [any EventMonitor]) {
            self.monitors = monitors
        }

        public func build(app: any App) -> any App { Instrumentation(app: app, handler: self) }
    }

    public func onRequest(_ env: inout Env) async throws {
        for monitor in handler.monitors { env.monitorEvents(with: monitor) }
        let info = env.events?.info()
        if let info { for monitor in handler.monitors { monitor.callStarted(info) } }
    }

    /// Reports the head as soon as it is known.
    public func call(_ env: Env) async throws -> Completions {
        let completions = try await app.call(env)
        if let head = completions.head.response, let events = env.events {
            events.emit {
                $0.responseHeadReceived($1, response: ResponseData(status: head.status, headers: head.headers))
            }
            if let status = completions.head.cacheStatus { events.emit { $0.cacheAnswered($1, status: status) } }
        }
        return completions
    }

    public func onComplete(_ env: inout Env) throws {
        if let events = env.events { Self.report(env, events) }
    }

    public func onError(_ error: FaradayError, env: Env) {
        env.events?.emit { $0.callFailed($1, error: error) }
    }
}

extension Instrumentation {
    /// Reports a frame or the end of a call.
    private static func report(_ env: Env, _ events: CallEvents) {
        guard let response = env.response else { return }
        if let index = env.phase.frameIndex {
            events.add(response.body.count)
            events.emit { $0.chunkReceived($1, index: index, bytes: response.body.count) }
        } else if env.isFinal {
            let bytes = events.bytes + response.body.count
            events.emit { $0.callFinished($1, response: response, bytes: bytes) }
        }
    }
}

/// The events of one call: its id, start and monitors, for the middleware that report.
final class CallEvents: Sendable {
    let id: Int
    let request: Request
    private let started = ContinuousClock.now
    private let state = Locked((monitors: [any EventMonitor](), streamed: 0))

    init(id: Int, request: Request) {
        self.id = id
        self.request = request
    }

    var bytes: Int { state.withLock { $0.streamed } }
    func add(_ bytes: Int) { state.withLock { $0.streamed += bytes } }
    func add(_ monitor: any EventMonitor) { state.withLock { $0.monitors.append(monitor) } }

    func info() -> CallInfo { CallInfo(id: id, request: request, elapsed: ContinuousClock.now - started) }

    func emit(_ event: (any EventMonitor, CallInfo) -> Void) {
        let monitors = state.withLock { $0.monitors }
        let info = info()
        for monitor in monitors { event(monitor, info) }
    }
}

enum CallEventsKey: EnvKey { typealias Value = CallEvents }

/// The number of a call, given by the first layer that reports it (``Instrumentation``,
/// ``HTTPLogger``), so that their reports of one call carry the same number.
enum CallIDKey: EnvKey {
    typealias Value = Int
    static let last = Locked(0)
}

extension Env {
    /// The events of this call, when a layer above monitors them.
    var events: CallEvents? { self[CallEventsKey.self] }

    /// This call's number in the process (from 1), given on first use.
    mutating func callID() -> Int {
        if let id = self[CallIDKey.self] { return id }
        let id = CallIDKey.last.withLock {
            $0 += 1
            return $0
        }
        self[CallIDKey.self] = id
        return id
    }

    /// Adds a monitor for the rest of this call: the layers below report their events to it
    /// (``Retry``'s attempts and retries, ``FollowRedirects``' redirects, and ``Instrumentation``'s
    /// head, chunks and end when it is above). A layer that traces or measures one call uses it.
    public mutating func monitorEvents(with monitor: any EventMonitor) {
        if let events {
            events.add(monitor)
        } else {
            let events = CallEvents(id: callID(), request: request)
            events.add(monitor)
            self[CallEventsKey.self] = events
        }
    }
}
