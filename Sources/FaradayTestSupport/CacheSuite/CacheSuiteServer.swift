import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// The HTTP caching suite's server (`test-engine/server` of http-tests/cache-tests), in process.
///
/// A test registers its requests under a UUID; the server answers `/test/<uuid>…` by the
/// request's number (the client's `Req-Num`) as the suite's Node server does: the status, the
/// fields with their dates made from seconds relative to now, a 304 only to the validator it
/// sent last, and the suite's own fields (`Server-Request-Count`, `Server-Now`,
/// `Request-Numbers`…), and it logs what it received for the client's checks. Each test has a
/// clock of its own, so that a test's three-second pauses are steps of that clock, not waits.
///
/// A response is written as raw bytes, one per connection: what the suite sends on purpose (a
/// `Content-Length` that is wrong, an unknown `Transfer-Encoding`, repeated lines, status 999)
/// reaches the client as written, and a `disconnect` closes the socket without an answer.
public final class CacheSuiteServer: Sendable {
    /// The port it listens on, on 127.0.0.1.
    public let port: Int
    private let channel: any Channel
    private let tests: NIOLockedValueBox<[String: TestState]>

    /// What the server received for one request, and the fields it sent that the client checks.
    public struct LogEntry: Sendable {
        /// The client's `Req-Num`.
        public let requestNumber: Int?
        /// The method.
        public let method: String
        /// The request's fields by lower-cased name, lines of one name joined with `, `.
        public let requestHeaders: [String: String]
        /// The response fields the client must see as sent, by name in order, lines joined.
        public let responseHeaders: [(name: String, value: String)]
    }

    struct TestState {
        let requests: [SuiteValue]
        let clock: SuiteClock
        var log: [LogEntry] = []
        /// The first value of each field sent, by request number and lower-cased name.
        var sent: [Int: [String: String]] = [:]
    }

    /// Starts the server.
    public static func start() async throws -> CacheSuiteServer {
        let tests = NIOLockedValueBox([String: TestState]())
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes))
                    )
                    try channel.pipeline.syncOperations.addHandler(
                        SuiteChannelHandler { head in Self.reply(to: head, tests: tests) }
                    )
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return CacheSuiteServer(port: channel.localAddress?.port ?? 0, channel: channel, tests: tests)
    }

    private init(port: Int, channel: any Channel, tests: NIOLockedValueBox<[String: TestState]>) {
        self.port = port
        self.channel = channel
        self.tests = tests
    }

    /// Registers a test's requests (the suite's request objects) under `uuid`, on `clock`.
    public func register(_ uuid: String, requests: [SuiteValue], clock: SuiteClock) {
        tests.withLockedValue { $0[uuid] = TestState(requests: requests, clock: clock) }
    }

    /// What the server received for the test `uuid`, in order.
    public func log(of uuid: String) -> [LogEntry] {
        tests.withLockedValue { $0[uuid]?.log ?? [] }
    }

    /// Stops listening.
    public func shutdown() async throws {
        try await channel.close()
    }

    // MARK: Answering

    enum Reply {
        case bytes(ByteBuffer)
        case disconnect
    }

    private static let dateFields: Set<String> = [
        "date", "expires", "last-modified", "if-modified-since", "if-unmodified-since",
    ]

    static func reply(to head: HTTPRequestHead, tests: NIOLockedValueBox<[String: TestState]>) -> Reply {
        let segments = head.uri.split(separator: "?", maxSplits: 1)[0].split(separator: "/")
        guard segments.count >= 2, segments[0] == "test" else { return .bytes(plain(404, "Not Found")) }
        let uuid = String(segments[1])
        return tests.withLockedValue { tests -> Reply in
            guard var state = tests[uuid] else { return .bytes(plain(409, "Conflict")) }
            let serverNumber = state.log.count + 1
            let clientNumber = head.headers.first(name: "req-num").flatMap { Int($0) }
            let number = clientNumber ?? serverNumber
            guard state.requests.indices.contains(number - 1) else { return .bytes(plain(409, "Conflict")) }
            let config = state.requests[number - 1]
            if let pause = config["response_pause"]?.int { state.clock.advance(Double(pause)) }
            let now = Int((state.clock.now.timeIntervalSince1970 * 1000).rounded())

            var status = (code: 200, phrase: "OK")
            if let given = config["response_status"]?.elements, let code = given.first?.int {
                status = (code, given.dropFirst().first?.string ?? "")
            }
            if let type = config["expected_type"]?.string, type.hasSuffix("validated"), number >= 2 {
                // The validator of the previous request's config: as sent when it was served, as
                // written when the cache answered it (the suite's server reads its config).
                let previousConfig = state.requests[number - 2]
                let previous = state.sent[number - 1]
                let matches = { (field: String, sent: String) in
                    let value = previous?[sent] ?? Self.writtenValue(of: sent, in: previousConfig)
                    return value.map { head.headers.first(name: field) == $0 } ?? false
                }
                status =
                    matches("if-modified-since", "last-modified") || matches("if-none-match", "etag")
                    ? (304, "Not Modified") : (999, "304 Not Generated")
            }

            var fields: [(String, String)] = [
                ("Server-Base-Url", head.uri), ("Server-Request-Count", "\(serverNumber)"),
                ("Client-Request-Count", clientNumber.map { "\($0)" } ?? "NaN"), ("Server-Now", "\(now)"),
            ]
            var sent: [String: String] = [:]
            var checked: [(name: String, value: String)] = []
            let rfc850 = Set((config["rfc850date"]?.elements ?? []).compactMap(\.string))
            for field in config["response_headers"]?.elements ?? [] {
                let parts = field.elements
                guard let name = parts.first?.string, parts.count >= 2 else { continue }
                let lower = name.lowercased()
                var value = parts[1].text
                if Self.dateFields.contains(lower), let delta = parts[1].int {
                    value = httpDate(milliseconds: now + delta * 1000, rfc850: rfc850.contains(lower))
                }
                if lower == "location" || lower == "content-location", config["magic_locations"]?.isTrue == true {
                    value = value.isEmpty ? head.uri : "\(head.uri)/\(value)"
                }
                fields.append((name, value))
                if sent[lower] == nil { sent[lower] = value }
                if parts.count < 3 || parts[2].isTrue {
                    let all = fields.filter { $0.0.lowercased() == lower }.map(\.1).joined(separator: ", ")
                    checked.removeAll { $0.name.lowercased() == lower }
                    checked.append((name, all))
                }
            }
            let names = Set(fields.map { $0.0.lowercased() })
            if !names.contains("content-type") { fields.append(("Content-Type", "text/plain")) }
            var requestHeaders: [String: String] = [:]
            for field in head.headers {
                let lower = field.name.lowercased()
                requestHeaders[lower] = requestHeaders[lower].map { "\($0), \(field.value)" } ?? field.value
            }
            state.log.append(
                LogEntry(
                    requestNumber: clientNumber,
                    method: head.method.rawValue,
                    requestHeaders: requestHeaders,
                    responseHeaders: checked
                )
            )
            fields.append(
                ("Request-Numbers", state.log.map { $0.requestNumber.map { "\($0)" } ?? "NaN" }.joined(separator: " "))
            )
            state.sent[number] = sent
            tests[uuid] = state
            if config["disconnect"]?.isTrue == true { return .disconnect }

            // Node's defaults: a `Date`, a body of the test's UUID, `Content-Length` unless the
            // test frames the body itself. One answer a connection.
            if !names.contains("date") { fields.append(("Date", httpDate(milliseconds: now, rfc850: false))) }
            let hasBody = status.code != 204 && status.code != 304
            let text = config["response_body"]?.string ?? ""
            let body = hasBody ? (text.isEmpty ? uuid : text) : ""
            if hasBody && !names.contains("content-length") && !names.contains("transfer-encoding") {
                fields.append(("Content-Length", "\(body.utf8.count)"))
            }
            fields.append(("Connection", "close"))
            var bytes = ByteBuffer()
            bytes.writeString("HTTP/1.1 \(status.code) \(status.phrase)\r\n")
            for (name, value) in fields { bytes.writeString("\(name): \(value)\r\n") }
            bytes.writeString("\r\n")
            if head.method != .HEAD { bytes.writeString(body) }
            return .bytes(bytes)
        }
    }

    /// The first value of the field `name` (lower-cased) in a request config's response fields,
    /// when it is text.
    private static func writtenValue(of name: String, in config: SuiteValue) -> String? {
        let field = (config["response_headers"]?.elements ?? []).first {
            $0.elements.first?.string?.lowercased() == name
        }
        return field?.elements.dropFirst().first?.string
    }

    private static func plain(_ code: Int, _ phrase: String) -> ByteBuffer {
        ByteBuffer(string: "HTTP/1.1 \(code) \(phrase)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    }

    /// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), or an RFC 850 date
    /// (`Sunday, 06-Nov-94 08:49:37 GMT`).
    public static func httpDate(milliseconds: Int, rfc850: Bool) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = rfc850 ? "EEEE, dd-MMM-yy HH:mm:ss 'GMT'" : "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}

/// A test's clock: starts at a fixed instant and moves only when told.
public final class SuiteClock: Sendable {
    private let date = NIOLockedValueBox(Date(timeIntervalSince1970: 1_700_000_000))

    /// Creates a clock.
    public init() {}

    /// The clock's time.
    public var now: Date { date.withLockedValue { $0 } }

    /// Moves the clock on.
    public func advance(_ seconds: Double) {
        date.withLockedValue { $0 += seconds }
    }
}

/// Reads one request and writes the server's answer, then closes the connection.
private final class SuiteChannelHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = ByteBuffer

    private let respond: @Sendable (HTTPRequestHead) -> CacheSuiteServer.Reply
    private var head: HTTPRequestHead?

    init(respond: @escaping @Sendable (HTTPRequestHead) -> CacheSuiteServer.Reply) {
        self.respond = respond
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body: break
        case .end:
            guard let head else { return }
            self.head = nil
            switch respond(head) {
            case .disconnect:
                context.close(promise: nil)
            case .bytes(let bytes):
                let written = context.eventLoop.makePromise(of: Void.self)
                context.writeAndFlush(wrapOutboundOut(bytes), promise: written)
                let channel = context.channel
                written.futureResult.whenComplete { _ in channel.close(promise: nil) }
            }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
