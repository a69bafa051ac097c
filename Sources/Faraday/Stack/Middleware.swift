/// A layer of the stack.
///
/// A middleware has two parts, and a stack always runs both:
///
/// - **Hooks**, for the common case: ``onRequest(_:)`` on the way down, ``onComplete(_:)`` on each
///   completion on the way up (once for a buffered response, once per frame and at the end of a
///   streamed one), and ``onError(_:env:)`` for a failure.
/// - **``App/call(_:)``**, for control over the call: call ``app`` zero times (a cache hit), once,
///   or several times (a retry), and return the ``Completions`` to pass up. By default it calls
///   `app` once.
///
/// The stack runs `onRequest`, then `call`, then adds the hooks to the completions that `call`
/// returned, so writing `call` never turns the hooks off.
///
/// **Every layer sees the end.** For each call that reached it, a middleware sees exactly one
/// terminal event: `onComplete` with the final completion (``Env/isFinal``), or `onError`, with
/// ``FaradayError/Code/cancelled`` when the consumer leaves early, drops the handle, cancels, or a
/// layer above discards the response. Resources held for a call (a permit, a span, a timer) are
/// released there.
///
/// ```swift
/// struct RequestID: Middleware {
///     let app: any App
///
///     func onRequest(_ env: inout Env) async throws {
///         env.request.headers[HTTPField.Name("X-Request-ID")!] = UUID().uuidString
///     }
///
///     struct Handler: Faraday.Handler {
///         func build(app: any App) -> any App { RequestID(app: app) }
///     }
/// }
/// ```
public protocol Middleware: App {
    /// The app below this middleware.
    var app: any App { get }

    /// Changes the request on the way down, before ``App/call(_:)``. Throwing stops the call
    /// before anything is sent.
    func onRequest(_ env: inout Env) async throws

    /// Changes a completion on the way up. Throwing fails the call with that error.
    func onComplete(_ env: inout Env) throws

    /// Observes the failure of the call at this layer: from below, from this layer's own
    /// `onRequest`, `call` or `onComplete`, or from the consumer leaving (``FaradayError/Code/cancelled``).
    func onError(_ error: FaradayError, env: Env)
}

extension Middleware {
    /// Does nothing.
    public func onRequest(_ env: inout Env) async throws {}

    /// Does nothing.
    public func onComplete(_ env: inout Env) throws {}

    /// Does nothing.
    public func onError(_ error: FaradayError, env: Env) {}

    /// Calls the app below once. Implement it to call the app several times, or not at all.
    public func call(_ env: Env) async throws -> Completions {
        try await app.call(env)
    }
}

/// A middleware as a built stack runs it: ``Middleware/onRequest(_:)``, then its
/// ``App/call(_:)``, then its completion hooks on what the call returns.
final class MiddlewareLayer: App {
    let middleware: any Middleware

    init(_ middleware: any Middleware) {
        self.middleware = middleware
    }

    func call(_ env: Env) async throws -> Completions {
        var env = env
        do {
            try await middleware.onRequest(&env)
            let completions = try await middleware.call(env)
            completions.add(.layer(self))
            return completions
        } catch {
            let failure = FaradayError.wrapping(error, request: env.request)
            middleware.onError(failure, env: env)
            throw failure
        }
    }
}
