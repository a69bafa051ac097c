/// A layer of the stack, built by its ``Handler`` around the app below it.
///
/// A middleware has two parts, and a stack always runs both:
///
/// - **Hooks**, for the common case: ``onRequest(_:)`` on the way down, ``onComplete(_:)`` on each
///   completion on the way up (once for a buffered response, once per frame and at the end of a
///   streamed one), and ``onError(_:env:)`` for a failure.
/// - **``call(_:)``**, for control over the call: call ``app`` zero times (a cache hit), once,
///   or several times (a retry), and return the ``Completions`` to pass up. By default it calls
///   `app` once.
///
/// The stack runs `onRequest`, then `call`, then the completion hooks on what `call` returned,
/// so writing `call` never turns the hooks off.
///
/// **Per-call state belongs to the layer.** What a layer keeps for one call (a start time, a
/// permit, a span) is its ``CallState``: `onRequest` returns it, and the stack hands it to this
/// layer's `onComplete(_:state:)` and `onError(_:env:state:)` for that call, never to another
/// layer's, so two layers of one kind in a stack keep two. A middleware without state writes the
/// hooks without `state`.
///
/// **Every layer sees the end.** For each call that reached it, a middleware sees exactly one
/// terminal event: `onComplete` with the final completion (``Env/isFinal``), or `onError`, with
/// ``FaradayError/Code/cancelled`` when the consumer leaves early, drops the handle, cancels, or a
/// layer above discards the response. Resources held for a call are released there.
///
/// ```swift
/// struct RequestID: Middleware {
///     let app: any App
///
///     func onRequest(_ env: inout Env) async throws {
///         env.request.headers[.named("X-Request-ID")] = UUID().uuidString
///     }
///
///     struct Handler: Faraday.Handler {
///         func build(app: any App) -> any Middleware { RequestID(app: app) }
///     }
/// }
/// ```
public protocol Middleware: Sendable {
    /// What this layer keeps for one call, from ``onRequest(_:)`` to the call's end; `Void` for
    /// a layer that keeps nothing.
    associatedtype CallState: Sendable = Void

    /// The app below this middleware.
    var app: any App { get }

    /// Changes the request on the way down, before ``call(_:)``, and returns this layer's state
    /// for the call. Throwing stops the call before anything is sent.
    func onRequest(_ env: inout Env) async throws -> CallState

    /// Calls the app below with the env `onRequest` left: once by default; implement it to call
    /// the app several times, or not at all.
    func call(_ env: Env) async throws(FaradayError) -> Completions

    /// Changes a completion on the way up. Throwing fails the call with that error.
    func onComplete(_ env: inout Env) throws

    /// ``onComplete(_:)`` with this layer's state for the call. By default it calls
    /// `onComplete(_:)`.
    func onComplete(_ env: inout Env, state: CallState) throws

    /// Observes the failure of the call at this layer: from below, from this layer's own
    /// `onRequest`, `call` or `onComplete`, or from the consumer leaving (``FaradayError/Code/cancelled``).
    func onError(_ error: FaradayError, env: Env)

    /// ``onError(_:env:)`` with this layer's state for the call: `nil` when `onRequest` threw. By
    /// default it calls `onError(_:env:)`.
    func onError(_ error: FaradayError, env: Env, state: CallState?)
}

extension Middleware where CallState == Void {
    /// Does nothing.
    public func onRequest(_ env: inout Env) async throws {}
}

extension Middleware {
    /// Calls the app below once.
    public func call(_ env: Env) async throws(FaradayError) -> Completions {
        try await app.call(env)
    }

    /// Does nothing.
    public func onComplete(_ env: inout Env) throws {}

    /// Calls ``onComplete(_:)``.
    public func onComplete(_ env: inout Env, state: CallState) throws {
        try onComplete(&env)
    }

    /// Does nothing.
    public func onError(_ error: FaradayError, env: Env) {}

    /// Calls ``onError(_:env:)``.
    public func onError(_ error: FaradayError, env: Env, state: CallState?) {
        onError(error, env: env)
    }
}

/// A middleware as a built stack runs it: ``Middleware/onRequest(_:)``, then its
/// ``Middleware/call(_:)``, then its completion hooks, with its state for the call, on what the
/// call returns. The one place where what a hook throws becomes a ``FaradayError``.
final class MiddlewareLayer<Layer: Middleware>: App {
    let middleware: Layer

    init(_ middleware: Layer) {
        self.middleware = middleware
    }

    func call(_ env: Env) async throws(FaradayError) -> Completions {
        var env = env
        let state: Layer.CallState
        do {
            state = try await middleware.onRequest(&env)
        } catch {
            let failure = FaradayError.wrapping(error, request: env.request)
            middleware.onError(failure, env: env, state: nil)
            throw failure
        }
        let completions: Completions
        do {
            completions = try await middleware.call(env)
        } catch {
            let failure = error.attaching(env.request)
            middleware.onError(failure, env: env, state: state)
            throw failure
        }
        completions.add(.layer(LayerCall(layer: self, state: state)))
        return completions
    }
}

/// One layer's part in one call's completions: its hooks and its state for the call.
struct LayerCall<Layer: Middleware>: LayerHooks {
    let layer: MiddlewareLayer<Layer>
    let state: Layer.CallState

    func complete(_ env: inout Env) throws(FaradayError) {
        do {
            try layer.middleware.onComplete(&env, state: state)
        } catch {
            throw FaradayError.wrapping(error, request: env.request)
        }
    }

    func fail(_ error: FaradayError, env: Env) {
        layer.middleware.onError(error, env: env, state: state)
    }
}

/// The hooks of one layer for one call, as ``Completions`` runs them.
protocol LayerHooks: Sendable {
    /// Runs the layer's `onComplete` on a completion; what it throws, as a ``FaradayError``.
    func complete(_ env: inout Env) throws(FaradayError)
    /// Runs the layer's `onError`.
    func fail(_ error: FaradayError, env: Env)
}
