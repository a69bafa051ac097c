/// A layer of the stack, built around the app below it: by a function
/// (`builder.use(RequestID.init)`), or by a ``Handler`` of its own.
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
///         env.request.headers["X-Request-ID"] = UUID().uuidString
///     }
/// }
///
/// let connection = try Connection(url: "https://api.example.com") { builder in
///     builder.use(RequestID.init)
/// }
/// ```
public protocol Middleware<CallState>: Sendable {
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

/// A middleware without state as a built stack runs it: ``Middleware/onRequest(_:)``, then its
/// ``Middleware/call(_:)``, then its completion hooks on what the call returns. Not generic, so
/// that a call through it looks up no type's metadata; ``StatefulLayer`` runs the others.
final class StatelessLayer: LayerHooks, App, @unchecked Sendable {
    // `@unchecked Sendable`: only `let`s of Sendable types.
    let middleware: any Middleware<Void>

    init(_ middleware: any Middleware<Void>) {
        self.middleware = middleware
    }

    func call(_ env: Env) async throws(FaradayError) -> Completions {
        var env = env
        do {
            try await middleware.onRequest(&env)
        } catch {
            throw LayerErrors.beforeCall(error, env, middleware, state: nil)
        }
        let completions: Completions
        do {
            completions = try await middleware.call(env)
        } catch {
            throw LayerErrors.fromCall(error, env, middleware, state: ())
        }
        completions.add(.layer(self))
        return completions
    }

    override func complete(_ env: inout Env) throws(FaradayError) {
        do {
            try middleware.onComplete(&env, state: ())
        } catch {
            throw LayerErrors.fromCompletion(error, env)
        }
    }

    override func fail(_ error: FaradayError, env: Env) {
        middleware.onError(error, env: env, state: ())
    }
}

/// A middleware with state as a built stack runs it, as ``StatelessLayer`` does, with the
/// layer's state for the call handed to its hooks.
final class StatefulLayer<Layer: Middleware>: App {
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
            throw LayerErrors.beforeCall(error, env, middleware, state: nil)
        }
        let completions: Completions
        do {
            completions = try await middleware.call(env)
        } catch {
            throw LayerErrors.fromCall(error, env, middleware, state: state)
        }
        completions.add(.layer(LayerCall(layer: self, state: state)))
        return completions
    }
}

/// The one place where what a layer's hooks throw becomes a ``FaradayError``, and the layer's
/// `onError` hears of a failure at its own level.
enum LayerErrors {
    /// What `onRequest` threw.
    static func beforeCall<Layer: Middleware>(
        _ error: any Error,
        _ env: Env,
        _ middleware: Layer,
        state: Layer.CallState?
    ) -> FaradayError {
        let failure = FaradayError.wrapping(error, request: env.request)
        middleware.onError(failure, env: env, state: state)
        return failure
    }

    /// What `onComplete` threw; the stack runs the `onError` hooks from there.
    static func fromCompletion(_ error: any Error, _ env: Env) -> FaradayError {
        FaradayError.wrapping(error, request: env.request)
    }

    /// What `call` threw, with the request it failed for.
    static func fromCall<Layer: Middleware>(
        _ error: FaradayError,
        _ env: Env,
        _ middleware: Layer,
        state: Layer.CallState
    ) -> FaradayError {
        let failure = error.attaching(env.request)
        middleware.onError(failure, env: env, state: state)
        return failure
    }
}

/// The hooks of one layer in one call's completions, as ``Completions`` runs them: the layer
/// itself when it keeps no state, else the layer with its state for the call. A class, so that
/// the completions hold one reference per layer.
class LayerHooks: @unchecked Sendable {
    // `@unchecked Sendable`: no stored property; subclasses hold only `let`s of Sendable types.

    /// Runs the layer's `onComplete` on a completion; what it throws, as a ``FaradayError``.
    func complete(_ env: inout Env) throws(FaradayError) {}
    /// Runs the layer's `onError`.
    func fail(_ error: FaradayError, env: Env) {}
}

/// A stateful layer's hooks in one call's completions, with its state for the call.
final class LayerCall<Layer: Middleware>: LayerHooks, @unchecked Sendable {
    // `@unchecked Sendable`: only `let`s of Sendable types.
    let layer: StatefulLayer<Layer>
    let state: Layer.CallState

    init(layer: StatefulLayer<Layer>, state: Layer.CallState) {
        self.layer = layer
        self.state = state
    }

    override func complete(_ env: inout Env) throws(FaradayError) {
        do {
            try layer.middleware.onComplete(&env, state: state)
        } catch {
            throw LayerErrors.fromCompletion(error, env)
        }
    }

    override func fail(_ error: FaradayError, env: Env) {
        layer.middleware.onError(error, env: env, state: state)
    }
}
