/// The list of handlers that a ``Connection`` folds into its middleware stack, and its adapter.
///
/// Handlers are listed outermost first: the first handler sees the request first and each
/// completion last. Edit the list before the connection's first request; it is folded once, then
/// locked.
///
/// ```swift
/// let connection = try Connection(url: "https://api.example.com") { builder in
///     builder.use(RequestID.init)
///     builder.adapter = TestAdapter()
/// }
/// ```
public struct RackBuilder: Sendable {
    /// The handlers, outermost first.
    public private(set) var handlers: [any Handler] = []
    /// The adapter at the bottom of the stack; `URLSessionAdapter` when none is set (with the
    /// package's `URLSession` trait, on by default; without it a stack must set one).
    public var adapter: (any Adapter)?

    /// Creates an empty builder.
    public init() {}

    /// Appends a handler at the bottom of the list, just above the adapter.
    public mutating func use(_ handler: any Handler) {
        handlers.append(handler)
    }

    /// Appends a middleware built by `build` around the app below it, just above the adapter:
    /// `builder.use(RequestID.init)`, or `builder.use { ClientName(app: $0, name: "docs") }`.
    ///
    /// The handler of a middleware that needs no ``Handler`` of its own (no placement check, no
    /// state to reset, no need to be found again by type with ``insert(_:before:)`` or
    /// ``delete(_:)``). `build` runs once, when the connection folds its stack.
    public mutating func use<Layer: Middleware>(_ build: @escaping @Sendable (any App) -> Layer) {
        handlers.append(BuildingFunction(build: build))
    }

    /// Sets the adapter: the original Swift Faraday's spelling of ``adapter``
    /// (`use(URLSessionAdapter.Handler())`).
    public mutating func use(_ adapter: any Adapter) {
        self.adapter = adapter
    }

    /// Inserts a handler at `index` (0 is the outermost).
    ///
    /// - Throws: ``FaradayError/Code/invalidRequest`` when `index` is out of range.
    public mutating func insert(_ handler: any Handler, at index: Int) throws(FaradayError) {
        guard handlers.indices.contains(index) || index == handlers.endIndex else {
            throw FaradayError(.invalidRequest, "No place \(index) in a stack of \(handlers.count) handlers.")
        }
        handlers.insert(handler, at: index)
    }

    /// Inserts a handler just above the first handler of type `existing`.
    public mutating func insert(_ handler: any Handler, before existing: any Handler.Type) throws(FaradayError) {
        handlers.insert(handler, at: try index(of: existing))
    }

    /// Inserts a handler just below the first handler of type `existing`.
    public mutating func insert(_ handler: any Handler, after existing: any Handler.Type) throws(FaradayError) {
        handlers.insert(handler, at: try index(of: existing) + 1)
    }

    /// Replaces the first handler of type `existing`.
    public mutating func swap(_ existing: any Handler.Type, with handler: any Handler) throws(FaradayError) {
        handlers[try index(of: existing)] = handler
    }

    /// Removes every handler of type `existing`.
    public mutating func delete(_ existing: any Handler.Type) {
        handlers.removeAll { type(of: $0) == existing }
    }

    /// `true` when a handler of type `type` is in the list.
    public func contains(_ type: any Handler.Type) -> Bool {
        handlers.contains { Swift.type(of: $0) == type }
    }

    private func index(of existing: any Handler.Type) throws(FaradayError) -> Int {
        guard let index = handlers.firstIndex(where: { type(of: $0) == existing }) else {
            let names = handlers.map { "\(type(of: $0))" }.joined(separator: ", ")
            throw FaradayError(.invalidRequest, "No handler of type \(existing) in the stack [\(names)].")
        }
        return index
    }

    /// Checks every handler's place, then folds the handlers around the adapter, innermost first.
    func build() throws(FaradayError) -> BuiltStack {
        for (index, handler) in handlers.enumerated() {
            try handler.checkPlacement(in: handlers, at: index)
        }
        let adapter: any Adapter
        if let chosen = self.adapter { adapter = chosen } else { adapter = try Self.defaultAdapter() }
        let app = handlers.reversed().reduce(StackBase(adapter: adapter) as any App) { app, handler in
            Self.layer(handler.build(app: app))
        }
        return BuiltStack(
            app: app,
            adapter: adapter,
            executorAdapter: adapter.namesExecutors ? adapter : nil,
            encoders: handlers.compactMap { $0 as? any BodyEncodingHandler }
        )
    }
}

extension RackBuilder {
    /// The adapter of a stack that sets none: ``URLSessionAdapter``, when the package's
    /// `URLSession` trait (on by default) compiled it in.
    fileprivate static func defaultAdapter() throws(FaradayError) -> any Adapter {
        #if URLSession
        URLSessionAdapter()
        #else
        throw FaradayError(
            .noAdapter,
            "The stack has no adapter: set builder.adapter (NIOAdapter(), say), or enable the package's "
                + "URLSession trait for URLSessionAdapter, the default."
        )
        #endif
    }

    /// A middleware as the stack runs it: its hooks around its `call`, whatever it implements.
    fileprivate static func layer(_ middleware: any Middleware) -> any App {
        if let stateless = middleware as? any Middleware<Void> { return StatelessLayer(stateless) }
        return statefulLayer(middleware)
    }

    private static func statefulLayer(_ middleware: some Middleware) -> any App {
        StatefulLayer(middleware)
    }
}

/// The handler of ``RackBuilder/use(_:)-((App)->Layer)``: a function that builds
/// the middleware around the app below.
struct BuildingFunction<Layer: Middleware>: Handler {
    let build: @Sendable (any App) -> Layer

    func build(app: any App) -> any Middleware {
        build(app)
    }
}

/// A folded stack, its adapter, and the body encoders in it, outermost first.
struct BuiltStack: Sendable {
    let app: any App
    /// The adapter at the stack's base.
    let adapter: any Adapter
    /// The adapter when it names the executors calls run on (``Adapter/namesExecutors``).
    let executorAdapter: (any Adapter)?
    let encoders: [any BodyEncodingHandler]
}
