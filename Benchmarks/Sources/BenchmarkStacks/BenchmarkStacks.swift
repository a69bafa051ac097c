import Faraday
import Foundation
import HTTPTypes
import Logging

/// The middleware stacks the benchmarks measure, the same in the micro and the loopback suites.
public enum BenchmarkStack: String, CaseIterable, Sendable {
    /// No middleware: the connection, the adapter and the response handle only.
    case empty
    /// One middleware that does nothing: the cost of a layer.
    case one
    /// Six middleware that do nothing: what the stack itself costs for six layers.
    case sixPassThrough
    /// Issue 22's six: EncodeJSON, DecodeJSON, HTTPLogger (logging off), Authorization (bearer),
    /// Cookies (in-memory jar), RaiseError.
    case six
    /// FollowRedirects and Retry, the six, then Instrumentation (one silent monitor),
    /// Decompression, ConcurrencyLimit and ValidateContentType.
    case twelve

    /// The handlers, outermost first. Each call makes a new cookie jar.
    public var handlers: [any Handler] {
        switch self {
        case .empty: []
        case .one: [PassThrough.Handler()]
        case .sixPassThrough: Array(repeating: PassThrough.Handler(), count: 6)
        case .six: Self.sixHandlers
        case .twelve:
            // FollowRedirects and Retry above the six: Cookies must sit below FollowRedirects.
            [FollowRedirects.Handler(), Retry.Handler()] + Self.sixHandlers + [
                Instrumentation.Handler(monitors: [SilentMonitor()]), Decompression.Handler(),
                ConcurrencyLimit.Handler(maximum: 1024),
                ValidateContentType.Handler(),
            ]
        }
    }

    private static var sixHandlers: [any Handler] { namedSix.map(\.handler) }

    /// The six middleware by name, for measuring each alone.
    public static var namedSix: [(name: String, handler: any Handler)] {
        var silent = Logger(label: "faraday.benchmark")
        silent.logLevel = .warning  // HTTPLogger logs at .info: every line is off
        return [
            ("EncodeJSON", EncodeJSON.Handler()),
            ("DecodeJSON", DecodeJSON.Handler()),
            ("HTTPLogger (off)", HTTPLogger.Handler(logger: silent)),
            ("Authorization", Authorization.Handler(.bearer("benchmark-token"))),
            ("Cookies", Cookies.Handler(jar: CookieJar())),
            ("RaiseError", RaiseError.Handler()),
        ]
    }

    /// The 207-byte JSON document of issue 22's workload, which the loopback suite's server
    /// serves as `small.json`.
    public static let document =
        #"{"id":1,"name":"widget","description":"A small JSON document, as APIs send","price":12.5,"#
        + #""tags":["tools","metal","small"],"stock":{"warehouse":"north","count":42},"active":true,"#
        + #""updated":"2026-11-22T10:00Z"}"#

    /// A connection with `handlers` on a TestAdapter whose stub answers `GET items/1` as the
    /// loopback suite's server does: ``document``, with no cookie (issue 22's workload), or with
    /// a `Set-Cookie` for the jar to parse and store on every response when `setsCookie`.
    /// With `fixed`, the adapter is a ``FixedResponseAdapter`` (the same answer, for any request)
    /// instead: it keeps nothing, so that a long run measures the stack alone.
    public static func connection(
        _ handlers: [any Handler],
        fixed: Bool = false,
        setsCookie: Bool = false
    ) throws -> Connection {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        if setsCookie { headers[.setCookie] = "session=abc123; Path=/; HttpOnly" }
        let body = document
        let adapter: any Adapter
        if fixed {
            adapter = FixedResponseAdapter(ResponseData(status: .ok, headers: headers, body: Data(body.utf8)))
        } else {
            let stubbed = TestAdapter()
            stubbed.stub(.get, .path("/items/1"), response: StubResponse(headers: headers, body: body))
            adapter = stubbed
        }
        return try Connection(url: "https://api.example.com") { builder in
            for handler in handlers { builder.use(handler) }
            builder.adapter = adapter
        }
    }

    /// Adds the handlers to a connection's builder.
    public func install(in builder: inout RackBuilder) {
        for handler in handlers { builder.use(handler) }
    }
}

/// An adapter that answers every call with the same buffered response and keeps nothing: the
/// TestAdapter records every request and matches stubs, which a 100,000-GET run pays for in page
/// faults and copies that are not the stack's.
public struct FixedResponseAdapter: Adapter {
    let response: ResponseData

    public init(_ response: ResponseData) { self.response = response }

    public func call(_ env: Env) async throws(FaradayError) -> Completions {
        var head = env
        head.response = response
        return .buffered(consume head)
    }
}

/// A middleware with no hooks: what one layer of the stack costs by itself.
public struct PassThrough: Middleware {
    public let app: any App

    /// Builds ``PassThrough``.
    public struct Handler: Faraday.Handler {
        public init() {}
        public func build(app: any App) -> any Middleware { PassThrough(app: app) }
    }
}

/// An event monitor that keeps nothing: Instrumentation's own cost, without a consumer's.
public struct SilentMonitor: EventMonitor {
    public init() {}
}
