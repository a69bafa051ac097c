import Foundation
import Synchronization

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
        let events = CallEvents(request: env.request, monitors: handler.monitors)
        env[CallEventsKey.self] = events
        events.emit { $0.callStarted($1) }
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
    private static let nextID = Atomic(0)

    let id = CallEvents.nextID.wrappingAdd(1, ordering: .relaxed).newValue
    let request: Request
    private let started = ContinuousClock.now
    private let monitors: [any EventMonitor]
    private let streamed = Atomic(0)

    init(request: Request, monitors: [any EventMonitor]) {
        self.request = request
        self.monitors = monitors
    }

    var bytes: Int { streamed.load(ordering: .relaxed) }
    func add(_ bytes: Int) { streamed.add(bytes, ordering: .relaxed) }

    func emit(_ event: (any EventMonitor, CallInfo) -> Void) {
        let info = CallInfo(id: id, request: request, elapsed: ContinuousClock.now - started)
        for monitor in monitors { event(monitor, info) }
    }
}

enum CallEventsKey: EnvKey { typealias Value = CallEvents }

extension Env {
    /// The events of this call, when an ``Instrumentation`` is above.
    var events: CallEvents? { self[CallEventsKey.self] }
}
