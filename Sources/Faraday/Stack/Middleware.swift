/// A layer of the stack with hooks for the common cases.
///
/// Implement any of ``onRequest(_:)``, ``onComplete(_:)`` and ``onError(_:env:)``; the default
/// ``App/call(_:)`` runs `onRequest` on the way down, calls ``app``, and runs `onComplete` on every
/// completion on the way up (once for a buffered response, once per frame and at the end of a
/// streamed one). `onError` sees every failure below this layer and in its own hooks.
///
/// ```swift
/// struct RequestID: Middleware {
///     let app: any App
///
///     func onRequest(_ env: inout Env) async throws {
///         env.request.headers[.init("X-Request-ID")!] = UUID().uuidString
///     }
///
///     struct Handler: Faraday.Handler {
///         func build(app: any App) -> any App { RequestID(app: app) }
///     }
/// }
/// ```
///
/// For more control, implement ``App/call(_:)`` yourself: call `app` zero times (a cache hit), once,
/// or several times (a retry), and transform the returned ``Completions``.
public protocol Middleware: App {
    /// The app below this middleware.
    var app: any App { get }

    /// Changes the request on the way down. Throwing stops the call before anything is sent.
    func onRequest(_ env: inout Env) async throws

    /// Changes a completion on the way up. Throwing fails the call with that error.
    func onComplete(_ env: inout Env) throws

    /// Observes a failure of the call below this layer, or of this layer's own hooks.
    func onError(_ error: FaradayError, env: Env)
}

extension Middleware {
    /// Does nothing.
    public func onRequest(_ env: inout Env) async throws {}

    /// Does nothing.
    public func onComplete(_ env: inout Env) throws {}

    /// Does nothing.
    public func onError(_ error: FaradayError, env: Env) {}

    /// Runs ``onRequest(_:)``, the app below, then ``onComplete(_:)`` for each completion.
    public func call(_ env: Env) async throws -> Completions {
        var env = env
        do {
            try await onRequest(&env)
            var completions = try await app.call(env)
            try completions.addHooks(of: self)
            return completions
        } catch {
            let failure = FaradayError.wrapping(error, request: env.request)
            onError(failure, env: env)
            throw failure
        }
    }
}
