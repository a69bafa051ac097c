/// Anything that takes an ``Env`` and produces ``Completions``: a middleware or an adapter.
///
/// The stack is a chain of apps: each middleware holds the app below it and the adapter is the
/// innermost one. An app may be called many times, from many tasks at once.
public protocol App: Sendable {
    /// Runs the request in `env` and returns its completions.
    ///
    /// Throw a ``FaradayError`` for failures before the response head; failures while a streamed
    /// body is read surface from the completions themselves.
    func call(_ env: Env) async throws -> Completions
}

/// The innermost ``App``: turns an ``Env`` into a real request (or, for ``TestAdapter``, a stub).
///
/// An adapter honours every ``RequestOptions`` value it can and refuses a request with one it
/// cannot honour (``FaradayError/Code/unsupportedOption``) before sending anything. It never
/// follows redirects on its own, and hands up a body as the stack asked for it: where a platform
/// decodes a compressed body itself (URLSession does, for the gzip ``Decompression`` asks for),
/// the adapter removes `Content-Encoding` and `Content-Length`, so that the stack sees one plain
/// body whatever the adapter.
public protocol Adapter: App {}

/// Builds one middleware around the app below it. A connection's stack is a list of handlers.
///
/// A handler holds a middleware's configuration; ``RackBuilder`` calls ``build(app:)`` once, when
/// the connection makes its first request.
public protocol Handler: Sendable {
    /// The middleware that wraps `app`.
    func build(app: any App) -> any App
}

/// A handler that installs an adapter at the bottom of the stack instead of adding a middleware:
/// the original Swift Faraday's `connection.use(handler: URLSessionAdapter.Handler())`.
/// `builder.adapter = URLSessionAdapter()` says the same.
public protocol AdapterHandler: Handler {
    /// The adapter to install.
    var adapter: any Adapter { get }
}

extension AdapterHandler {
    /// The adapter itself: ``RackBuilder/use(_:)`` installs it rather than folding it in.
    public func build(app: any App) -> any App { adapter }
}
