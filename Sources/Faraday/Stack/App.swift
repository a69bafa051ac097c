/// What a middleware calls below it: the next layer of the stack, or the adapter.
///
/// The stack is a chain of apps: each middleware holds the app below it and the adapter is the
/// innermost one. An app may be called many times, from many tasks at once.
public protocol App: Sendable {
    /// Runs the request in `env` and returns its completions.
    ///
    /// Throws for failures before the response head; failures while a streamed body is read
    /// surface from the completions themselves.
    func call(_ env: Env) async throws(FaradayError) -> Completions
}

/// The innermost ``App``: turns an ``Env`` into a real request (or, for ``TestAdapter``, a stub).
///
/// An adapter honours every ``RequestOptions`` value it can and refuses a request with one it
/// cannot honour (``FaradayError/Code/unsupportedOption``) before sending anything. It never
/// follows redirects on its own, and hands up a body as the stack asked for it: where a platform
/// decodes a compressed body itself (URLSession does, for the gzip ``Decompression`` asks for),
/// the adapter removes `Content-Encoding` and `Content-Length`, so that the stack sees one plain
/// body whatever the adapter.
///
/// Set it with `builder.adapter = URLSessionAdapter()`, or with the original Swift Faraday's
/// spelling, `connection.use(handler: URLSessionAdapter.Handler())`, where an adapter's `Handler`
/// is the adapter itself. It is no ``Handler``: it adds no layer, so nothing can put an adapter
/// mid-stack.
public protocol Adapter: App {
    /// The executor the stack of a call for `request` runs on, or `nil` (the default) to run it
    /// where the caller awaits it.
    ///
    /// An adapter on an event loop names that loop's executor, so that the stack, the adapter and
    /// the response's bytes are on one thread with no hand-over between them. The handle runs the
    /// call with this preference while it awaits ``Response/value`` or ``Response/head``, and for
    /// callbacks; the caller's own code after the await runs where it ran before.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    func preferredExecutor(for request: Request) -> (any TaskExecutor)?

    /// Whether ``preferredExecutor(for:)`` names executors; `false` by default. Read once, when
    /// the stack is built, so that a call on an adapter that names none never asks.
    var namesExecutors: Bool { get }

    /// Whether the calling thread is one the adapter's own work runs on (one of its event
    /// loops); `false` by default. ``Response/wait(timeout:)`` refuses to block such a thread,
    /// since the call it would wait for could then never run.
    func ownsCurrentThread() -> Bool
}

extension Adapter {
    /// No preference: the stack runs where the caller awaits it.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    public func preferredExecutor(for request: Request) -> (any TaskExecutor)? { nil }

    /// No executors named.
    public var namesExecutors: Bool { false }

    /// The adapter runs nothing on threads of its own.
    public func ownsCurrentThread() -> Bool { false }
}

/// Builds one middleware around the app below it. A connection's stack is a list of handlers.
///
/// A handler holds a middleware's configuration; ``RackBuilder`` calls ``build(app:)`` once, when
/// the connection makes its first request. A middleware needs a handler type of its own to be
/// found again by type, to check its place or to reset its state; otherwise the function that
/// builds it is enough (``RackBuilder/use(_:)-((App)->Layer)``).
public protocol Handler: Sendable {
    /// The middleware that wraps `app`.
    func build(app: any App) -> any Middleware

    /// Checks, when the stack is built, that the middleware can do its job at `index` of
    /// `handlers` (outermost first), and throws ``FaradayError/Code/misplacedHandler`` naming the
    /// place it belongs when it cannot. The default accepts any place; a handler implements it
    /// only for an order that cannot work, never for a mere choice (per call or per attempt).
    func checkPlacement(in handlers: [any Handler], at index: Int) throws(FaradayError)

    /// Forgets the state the middleware keeps across requests and that a logout or an account
    /// switch must clear (credentials, cookies, cached responses); ``Connection/reset()`` calls it
    /// on every handler. Calls already in flight finish with the state they started with: what
    /// they bring back after the reset (a refreshed token, a `Set-Cookie`) is not stored. The
    /// default does nothing.
    func reset()
}

extension Handler {
    /// Any place will do.
    public func checkPlacement(in handlers: [any Handler], at index: Int) throws(FaradayError) {}

    /// No state to forget.
    public func reset() {}
}

/// A handler whose middleware encodes one kind of value body into bytes (a JSON value, a form,
/// a multipart form…): the package's encoders.
///
/// The stack knows its encoders, so a layer above one can have the body encoded early, by that
/// encoder's settings, and see the bytes that go on the wire (``Env/encodeRequestBody()``).
package protocol BodyEncodingHandler: Handler {
    /// Encodes the request's body in place when it is a value of this encoder's kind (bytes and
    /// the content type, unless the request has one); leaves every other body as it is.
    func encodeBody(of request: inout Request) throws(FaradayError)
}

extension BodyEncodingHandler {
    /// Encodes an env's request body, for a middleware's `onRequest`: the env is changed only
    /// when its body is a value, since a change to an env, even to nothing, first copies the
    /// fields it shares with its copies.
    package func encodeBody(of env: inout Env) throws(FaradayError) {
        guard env.request.body.value != nil else { return }
        try encodeBody(of: &env.request)
    }
}
