#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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

        public func build(app: any App) -> any Middleware { Instrumentation(app: app, handler: self) }
    }

    /// Starts this layer's record of the call (its monitors, start and byte count), its state
    /// for the call: another Instrumentation in the stack keeps its own.
    public func onRequest(_ env: inout Env) -> CallEvents {
        let events = env.addMonitors(handler.monitors)
        events.emitHere { $0.callStarted($1) }
        return events
    }

    /// Tells the monitors of the head as soon as it is known, before any completion is pulled.
    public func call(_ env: Env) async throws(FaradayError) -> Completions {
        let completions = try await app.call(env)
        // `env` is this layer's own: the record its `onRequest` added is the last one in it.
        if let events = env.events, let head = completions.head.response {
            events.emitHere {
                $0.responseHeadReceived($1, response: ResponseData(status: head.status, headers: head.headers))
            }
            if let status = completions.head.cacheStatus { events.emitHere { $0.cacheAnswered($1, status: status) } }
        }
        return completions
    }

    /// Counts a frame, or tells the monitors the call finished.
    public func onComplete(_ env: inout Env, state events: CallEvents) {
        events.report(env)
    }

    /// Tells the monitors the call failed.
    public func onError(_ error: FaradayError, env: Env, state events: CallEvents?) {
        events?.emitHere { $0.callFailed($1, error: error) }
    }
}

/// The monitors one layer added to a call, and those of the layers above: a layer's own events
/// go to its monitors (`emitHere(_:)`), the events of ``Retry`` and ``FollowRedirects`` to every
/// monitor above them (`emit(_:)`). Each pass through a layer below a retrying one makes a node of
/// its own, so no monitor hears an event twice or hears another attempt's.
///
/// One allocation with its lock, which guards the streamed byte count; the rest never changes.
public struct CallEvents: @unchecked Sendable {
    // `@unchecked Sendable`: copies share `storage`, whose state is only touched under its lock.
    private let storage: LockedBuffer<State>

    private struct State {
        let id: Int
        /// The env as it entered the layer.
        let entered: Env
        let started: ContinuousClock.Instant
        let monitors: [any EventMonitor]
        let parent: CallEvents?
        var streamed = 0
    }

    init(id: Int, entered: Env, monitors: [any EventMonitor], parent: CallEvents?) {
        storage = LockedBuffer.make(State(id: id, entered: entered, started: .now, monitors: monitors, parent: parent))
    }

    /// Tells this node's monitors.
    func emitHere(_ event: (any EventMonitor, CallInfo) -> Void) {
        let (monitors, info) = storage.withLock {
            ($0.monitors, CallInfo(id: $0.id, entered: $0.entered, elapsed: .now - $0.started))
        }
        for monitor in monitors { event(monitor, info) }
    }

    /// Tells the monitors of this node and of every node above it.
    func emit(_ event: (any EventMonitor, CallInfo) -> Void) {
        var node: CallEvents? = self
        while let current = node {
            current.emitHere(event)
            node = current.storage.withLock { $0.parent }
        }
    }

    /// A frame (counted) or the end of the call, for this node's monitors.
    func report(_ env: Env) {
        guard let response = env.response else { return }
        let count = response.body.count
        if let index = env.phase.frameIndex {
            storage.withLock { $0.streamed += count }
            emitHere { $0.chunkReceived($1, index: index, bytes: count) }
        } else if env.isFinal {
            let bytes = storage.withLock { $0.streamed } + count
            emitHere { $0.callFinished($1, response: response, bytes: bytes) }
        }
    }
}

enum CallEventsKey: EnvKey { typealias Value = CallEvents }

extension Env {
    /// The events of this call, when a layer above monitors them.
    var events: CallEvents? { self[CallEventsKey.self] }

    /// Adds monitors for the rest of this pass down the stack: they hear what the layers below
    /// report (``Retry``'s attempts and retries, ``FollowRedirects``' redirects), as ``Instrumentation``'s
    /// monitors do. A layer that traces or measures one call (a span per call) uses it.
    public mutating func monitorEvents(with monitor: any EventMonitor) {
        addMonitors([monitor])
    }

    /// ``monitorEvents(with:)`` for a list; returns the node that holds them.
    @discardableResult
    mutating func addMonitors(_ monitors: [any EventMonitor]) -> CallEvents {
        let events = CallEvents(id: callID, entered: self, monitors: monitors, parent: events)
        self[CallEventsKey.self] = events
        return events
    }
}
