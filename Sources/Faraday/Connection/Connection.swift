import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A client for one HTTP service: a base URL, defaults for every request, and a middleware stack
/// ending in an adapter.
///
/// ```swift
/// let connection = try Connection(url: "https://api.example.com/v1") { builder in
///     builder.use(RequestID.Handler())
///     builder.adapter = TestAdapter()
/// }
/// let env = try await connection.get("users/1").value
/// ```
///
/// The defaults (``url``, ``headers``, ``params``, ``options``) can change at any time and apply
/// to requests made afterwards. The stack is folded on the first request and locked from then on:
/// editing it afterwards throws ``FaradayError/Code/stackLocked``.
///
/// A connection is safe to share between tasks and threads.
public final class Connection: Sendable {
    /// The URL of a request before it is built (a URL costs a parse to make).
    static let placeholderURL = URL(filePath: "/")

    /// The `User-Agent` sent when neither the connection nor the request sets one.
    public static let defaultUserAgent = "Faraday/\(faradayVersion)"

    /// The defaults of every request, as one immutable value: a call takes them with one
    /// retain under the lock, and a setter (rare) replaces them with an edited copy.
    final class Defaults: Sendable {
        /// What the setters edit.
        struct Settings {
            var url: URL?
            var headers: HTTPFields
            var params: Params
            var options: RequestOptions
            /// The folded stack, once the first request built it.
            var stack: BuiltStack?
        }

        let url: URL?
        let headers: HTTPFields
        let params: Params
        let options: RequestOptions
        let stack: BuiltStack?
        /// ``url`` taken apart once for resolving paths (with the paths it remembers).
        let base: BaseURL?
        /// ``options`` as every request starts with them: their credential origins are the origin
        /// of ``url`` (as ``RequestOptions/credentialOrigins`` writes it), then the options' own.
        let requestOptions: RequestOptions
        /// The origin of ``url`` alone, for requests built by hand.
        let origin: [String]

        /// Derives what a request needs from `settings`, keeping `previous`'s base URL (and the
        /// paths it remembers) when the URL is the same.
        init(_ settings: Settings, previous: Defaults? = nil) {
            (url, headers, params, options, stack) = (
                settings.url, settings.headers, settings.params, settings.options, settings.stack
            )
            if let previous, previous.url == settings.url {
                (base, origin) = (previous.base, previous.origin)
            } else {
                base = settings.url.map(BaseURL.init)
                origin = settings.url.flatMap(Origin.init).map { ["\($0)"] } ?? []
            }
            var requestOptions = settings.options
            requestOptions.credentialOrigins = origin + settings.options.credentialOrigins
            self.requestOptions = requestOptions
        }

        /// A copy with `edit` made to its settings.
        func editing(_ edit: (inout Settings) -> Void) -> Defaults {
            var settings = Settings(url: url, headers: headers, params: params, options: options, stack: stack)
            edit(&settings)
            return Defaults(settings, previous: self)
        }
    }

    private struct Stack: Sendable {
        var builder: RackBuilder
        var built: BuiltStack?
    }

    /// The defaults of every request (URL, headers, params, options), under their lock.
    let defaults: Locked<Defaults>
    private let stack: Locked<Stack>

    /// Creates a connection with no middleware, on the default adapter (``URLSessionAdapter``,
    /// unless an adapter's handler, `use(handler: SomeAdapter.Handler())`, installs another); `Connection()` then `connection.url = …` as
    /// in the original Swift Faraday.
    ///
    /// - Parameters:
    ///   - url: the base URL that request paths are relative to; `nil` to pass full URLs only.
    ///   - headers: headers sent with every request (a request's own headers override them by name).
    ///   - params: query parameters sent with every request (a request's override them by name).
    ///   - options: default ``RequestOptions``.
    public convenience init(
        url: URL? = nil,
        headers: HTTPFields = HTTPFields(),
        params: Params = Params(),
        options: RequestOptions = RequestOptions()
    ) {
        self.init(url: url, headers: headers, params: params, options: options, builder: RackBuilder())
    }

    /// Creates a connection and sets up its middleware stack and adapter.
    ///
    /// - Parameters:
    ///   - url: the base URL that request paths are relative to; `nil` to pass full URLs only.
    ///   - headers: headers sent with every request (a request's own headers override them by name).
    ///   - params: query parameters sent with every request (a request's override them by name).
    ///   - options: default ``RequestOptions``.
    ///   - configure: sets up the middleware stack and adapter (``URLSessionAdapter`` when it
    ///     sets none).
    public convenience init(
        url: URL? = nil,
        headers: HTTPFields = HTTPFields(),
        params: Params = Params(),
        options: RequestOptions = RequestOptions(),
        configure: (inout RackBuilder) -> Void
    ) {
        var builder = RackBuilder()
        configure(&builder)
        self.init(url: url, headers: headers, params: params, options: options, builder: builder)
    }

    /// Creates a connection whose set-up may fail (``RackBuilder/insert(_:at:)`` throws, and so
    /// may your own code).
    ///
    /// - Throws: the ``FaradayError`` that `configure` threw; any other error it threw, as
    ///   ``FaradayError/Code/unknown`` with the error as its `underlying` one.
    public convenience init(
        url: URL? = nil,
        headers: HTTPFields = HTTPFields(),
        params: Params = Params(),
        options: RequestOptions = RequestOptions(),
        configure: (inout RackBuilder) throws -> Void
    ) throws(FaradayError) {
        var builder = RackBuilder()
        do {
            try configure(&builder)
        } catch {
            throw FaradayError.wrapping(error)
        }
        self.init(url: url, headers: headers, params: params, options: options, builder: builder)
    }

    private init(url: URL?, headers: HTTPFields, params: Params, options: RequestOptions, builder: RackBuilder) {
        var headers = headers
        if !headers.contains(.userAgent) { headers[.userAgent] = Self.defaultUserAgent }
        let settings = Defaults.Settings(url: url, headers: headers, params: params, options: options)
        self.defaults = Locked(Defaults(settings))
        self.stack = Locked(Stack(builder: builder))
    }

    /// Creates a connection from a base URL string.
    ///
    /// - Throws: ``FaradayError/Code/invalidURL`` unless `url` is an http or https URL with a host;
    ///   what `configure` threw, as the initializer on a `URL` throws it.
    public convenience init(
        url: String,
        headers: HTTPFields = HTTPFields(),
        params: Params = Params(),
        options: RequestOptions = RequestOptions(),
        configure: (inout RackBuilder) throws -> Void = { _ in }
    ) throws(FaradayError) {
        try self.init(
            url: URLResolver.validateBase(url),
            headers: headers,
            params: params,
            options: options,
            configure: configure
        )
    }

    // MARK: Defaults

    /// The base URL that request paths are relative to.
    public var url: URL? {
        get { defaults.withLock { $0.url } }
        set { defaults.withLock { $0 = $0.editing { $0.url = newValue } } }
    }

    /// Headers sent with every request; a request's own headers replace them by name.
    public var headers: HTTPFields {
        get { defaults.withLock { $0.headers } }
        set { defaults.withLock { $0 = $0.editing { $0.headers = newValue } } }
    }

    /// Query parameters sent with every request; a request's own parameters replace them by name.
    public var params: Params {
        get { defaults.withLock { $0.params } }
        set { defaults.withLock { $0 = $0.editing { $0.params = newValue } } }
    }

    /// Default options for every request.
    public var options: RequestOptions {
        get { defaults.withLock { $0.options } }
        set { defaults.withLock { $0 = $0.editing { $0.options = newValue } } }
    }

    // MARK: Stack

    /// The handlers of the stack, outermost first.
    public var handlers: [any Handler] { stack.withLock { $0.builder.handlers } }

    /// Edits the stack; throws ``FaradayError/Code/stackLocked`` after the first request.
    public func editStack(_ edit: (inout RackBuilder) throws(FaradayError) -> Void) throws(FaradayError) {
        try stack.withLock { stack throws(FaradayError) in
            guard stack.built == nil else {
                throw FaradayError(
                    .stackLocked,
                    "The middleware stack is locked: it was built for the connection's first request. Configure it before making requests."
                )
            }
            try edit(&stack.builder)
        }
    }

    /// Appends a handler above the adapter.
    public func use(_ handler: any Handler) throws(FaradayError) {
        try editStack { $0.use(handler) }
    }

    /// Appends a handler above the adapter (the original Swift Faraday spelling).
    public func use(handler: any Handler) throws(FaradayError) {
        try use(handler)
    }

    /// Appends a middleware built by `build` around the app below it; see
    /// ``RackBuilder/use(_:)-((App)->Layer)``.
    public func use<Layer: Middleware>(_ build: @escaping @Sendable (any App) -> Layer) throws(FaradayError) {
        try editStack { $0.use(build) }
    }

    /// Sets the adapter; see ``RackBuilder/adapter``.
    public func use(_ adapter: any Adapter) throws(FaradayError) {
        try editStack { $0.adapter = adapter }
    }

    /// Sets the adapter (the original Swift Faraday spelling,
    /// `use(handler: URLSessionAdapter.Handler())`).
    public func use(handler adapter: any Adapter) throws(FaradayError) {
        try use(adapter)
    }

    /// Inserts a handler at `index` (0 is the outermost); see ``RackBuilder/insert(_:at:)``.
    public func insert(_ handler: any Handler, at index: Int) throws(FaradayError) {
        try editStack { builder throws(FaradayError) in try builder.insert(handler, at: index) }
    }

    /// Inserts a handler just above the first handler of type `existing`; see
    /// ``RackBuilder/insert(_:before:)``.
    public func insert(_ handler: any Handler, before existing: any Handler.Type) throws(FaradayError) {
        try editStack { builder throws(FaradayError) in try builder.insert(handler, before: existing) }
    }

    /// Inserts a handler just below the first handler of type `existing`; see
    /// ``RackBuilder/insert(_:after:)``.
    public func insert(_ handler: any Handler, after existing: any Handler.Type) throws(FaradayError) {
        try editStack { builder throws(FaradayError) in try builder.insert(handler, after: existing) }
    }

    /// Replaces the first handler of type `existing`; see ``RackBuilder/swap(_:with:)``.
    public func swap(_ existing: any Handler.Type, with handler: any Handler) throws(FaradayError) {
        try editStack { builder throws(FaradayError) in try builder.swap(existing, with: handler) }
    }

    /// Removes every handler of type `existing`.
    public func delete(_ existing: any Handler.Type) throws(FaradayError) {
        try editStack { $0.delete(existing) }
    }

    /// Clears the state of every middleware that keeps some (token stores forget credentials,
    /// cookie jars empty, caches drop entries): ``Handler/reset()`` of every handler. Use it at
    /// logout or when switching accounts; calls in flight finish with the state they started with.
    public func reset() {
        for handler in stack.withLock({ $0.builder.handlers }) { handler.reset() }
    }

    /// The folded stack, built and locked on first use (a call finds it in its snapshot of the
    /// ``defaults`` from then on).
    func builtStack() throws(FaradayError) -> BuiltStack {
        let (built, isNew) = try stack.withLock { stack throws(FaradayError) in
            if let built = stack.built { return (built, false) }
            let built = try stack.builder.build()
            stack.built = built
            return (built, true)
        }
        if isNew { defaults.withLock { $0 = $0.editing { $0.stack = built } } }
        return built
    }
}

/// The version of this package, sent in the default `User-Agent`.
public let faradayVersion = "0.1.0"
