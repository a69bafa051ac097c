import Foundation
import HTTPTypes
import Logging

/// Logs requests and responses through swift-log, with secrets hidden (Ruby Faraday's `:logger`).
///
/// ```swift
/// builder.use(HTTPLogger.Handler(logger: Logger(label: "api"), request: .bodies, response: .headers))
/// ```
///
/// - Each request is logged as it leaves (`→ POST https://…`), each response as it arrives
///   (`← 201 Created POST https://… (12.3 ms)`), each failure with its code and time.
/// - ``Detail`` chooses how much: the URL line only, with headers, or with bodies too.
/// - ``Redaction`` hides `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie` and
///   credential parameters and fields by default, in every line and in the cURL command.
/// - Bodies are cut at ``Handler/bodyLimit`` bytes; bodies that are not text are summarised.
/// - A streamed response is logged as it flows, one line per chunk with its size, never
///   buffered, and a summary at its end.
/// - With ``Handler/logsCurl`` each request is also logged as an equivalent `curl` command.
public struct HTTPLogger: Middleware {
    /// The app below.
    public let app: any App
    /// The handler's settings.
    public let handler: Handler

    /// How much of a request or response is logged.
    public struct Detail: Sendable, Hashable, Comparable {
        private let rank: Int
        /// The method, URL, status and time only.
        public static let url = Detail(rank: 0)
        /// The URL line and the headers.
        public static let headers = Detail(rank: 1)
        /// The URL line, the headers and the body.
        public static let bodies = Detail(rank: 2)

        public static func < (lhs: Detail, rhs: Detail) -> Bool { lhs.rank < rhs.rank }
    }

    /// Builds ``HTTPLogger``.
    public struct Handler: Faraday.Handler {
        /// Where lines go.
        public var logger: Logging.Logger
        /// The level of request and response lines (failures are logged at `.error`).
        public var level: Logging.Logger.Level
        /// How much of each request is logged.
        public var request: Detail
        /// How much of each response is logged.
        public var response: Detail
        /// What is hidden.
        public var redaction: Redaction
        /// The most body bytes logged.
        public var bodyLimit: Int
        /// Whether each request is also logged as a `curl` command.
        public var logsCurl: Bool

        /// Creates the handler.
        public init(
            logger: Logging.Logger = Logging.Logger(label: "faraday"),
            level: Logging.Logger.Level = .info,
            request: Detail = .headers,
            response: Detail = .headers,
            redaction: Redaction = Redaction(),
            bodyLimit: Int = 4096,
            logsCurl: Bool = false
        ) {
            self.logger = logger
            self.level = level
            self.request = request
            self.response = response
            self.redaction = redaction
            self.bodyLimit = bodyLimit
            self.logsCurl = logsCurl
        }

        public func build(app: any App) -> any App { HTTPLogger(app: app, handler: self) }
    }

    public func onRequest(_ env: inout Env) async throws {
        // With the level off, the call is not followed at all: no timing, no lines built. Only a
        // failure (at `.error`) is still logged, without its time.
        guard handler.logger.logLevel <= handler.level else { return }
        env[CallKey.self] = CallLog()
        // Above an encoder the body is still a value: the log shows it encoded by the stack's
        // encoder, with its Content-Type, as it will go on the wire. A copy is encoded: what is sent
        // must not depend on the log level.
        var request = env.request
        if handler.request >= .headers || handler.logsCurl, request.body.value != nil {
            var display = env
            try display.encodeRequestBody()
            request = display.request
        }
        var lines = ["→ \(request.method.rawValue) \(handler.redaction.redacting(request.url))"]
        if handler.request >= .headers { lines += headerLines(request.headers) }
        if handler.request >= .bodies, let body = requestBody(request) { lines.append(body) }
        handler.logger.log(level: handler.level, "\(lines.joined(separator: "\n"))")
        if handler.logsCurl {
            handler.logger.log(level: handler.level, "\(request.curlCommand(redacting: handler.redaction))")
        }
    }

    public func onComplete(_ env: inout Env) throws {
        guard let call = env[CallKey.self], let response = env.response else { return }
        let isStreamed = env.phase.frameIndex != nil || call.frames > 0
        if let index = env.phase.frameIndex {
            if index == 0 { logHead(env, response, call, streamed: true) }
            call.add(response.body.count)
            handler.logger.log(level: handler.level, "← chunk \(index): \(response.body.count) bytes")
        } else if isStreamed {
            handler.logger.log(
                level: handler.level,
                "← end of stream \(summary(env)): \(call.bytes) bytes in \(call.frames) chunks (\(call.elapsed))"
            )
        } else {
            logHead(env, response, call, streamed: false)
        }
    }

    public func onError(_ error: FaradayError, env: Env) {
        let elapsed = env[CallKey.self].map { " after \($0.elapsed)" } ?? ""
        // Messages name URLs: the request's, or the error's own (a redirect's), redacted here too.
        var message = handler.redaction.scrub(error.message, of: env.request.url)
        if let url = error.url { message = handler.redaction.scrub(message, of: url) }
        handler.logger.log(level: .error, "✗ \(summary(env)) failed\(elapsed): \(error.code): \(message)")
    }

    private func logHead(_ env: Env, _ response: ResponseData, _ call: CallLog, streamed: Bool) {
        let cache = env.cacheStatus.map { ", cache \($0.rawValue)" } ?? ""
        var lines = [
            "← \(response.status.code) \(response.status.reasonPhrase) \(summary(env)) (\(call.elapsed)\(cache))"
        ]
        if handler.response >= .headers { lines += headerLines(response.headers) }
        if handler.response >= .bodies && !streamed {
            lines.append(describe(response.body, contentType: response.headers.contentType))
        }
        handler.logger.log(level: handler.level, "\(lines.joined(separator: "\n"))")
    }

    private func summary(_ env: Env) -> String {
        "\(env.request.method.rawValue) \(handler.redaction.redacting(env.request.url))"
    }

    private func headerLines(_ fields: HTTPFields) -> [String] {
        handler.redaction.redact(fields).map { "  \($0.name): \($0.value)" }
    }

    private func requestBody(_ request: Request) -> String? {
        if let bytes = request.body.bytesInMemory {
            return bytes.isEmpty ? nil : describe(bytes, contentType: request.headers.contentType)
        }
        return "  (streamed body\(request.body.length.map { " of \($0) bytes" } ?? ""))"
    }

    /// A body as redacted text cut at the limit, or a summary when it is not text.
    private func describe(_ body: Data, contentType: String?) -> String {
        guard !body.isEmpty else { return "  (empty body)" }
        guard let text = handler.redaction.redactBody(body, contentType: contentType) else {
            return "  (binary body, \(body.count) bytes\(contentType.map { ", \($0)" } ?? ""))"
        }
        let utf8 = Array(text.utf8)
        guard utf8.count > handler.bodyLimit else { return "  " + text }
        return "  " + String(decoding: utf8.prefix(handler.bodyLimit), as: UTF8.self)
            + "… (\(utf8.count - handler.bodyLimit) more bytes)"
    }

    private enum CallKey: EnvKey { typealias Value = CallLog }
}

/// When a call started and how much of its stream has passed, shared by its completions.
private final class CallLog: Sendable {
    private let started = ContinuousClock.now
    private let counts = Locked((frames: 0, bytes: 0))

    func add(_ bytes: Int) {
        counts.withLock {
            $0.frames += 1
            $0.bytes += bytes
        }
    }
    var frames: Int { counts.withLock { $0.frames } }
    var bytes: Int { counts.withLock { $0.bytes } }

    var elapsed: String {
        let duration = ContinuousClock.now - started
        let milliseconds = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        return String(format: "%.1f ms", milliseconds)
    }
}

extension Logging.Logger {
    /// ``HTTPLogger/Handler``, by the original Swift Faraday's name:
    /// `connection.use(handler: Logger.Handler())`.
    public typealias Handler = HTTPLogger.Handler
}
