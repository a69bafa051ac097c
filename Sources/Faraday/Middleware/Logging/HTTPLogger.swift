import HTTPTypes
import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Logs requests and responses through swift-log, with secrets hidden (Ruby Faraday's `:logger`).
///
/// ```swift
/// builder.use(HTTPLogger.Handler(logger: Logger(label: "api"), request: .bodies, response: .headers))
/// ```
///
/// Each event of a call (request sent, response head, chunk, end of stream, failure) is one line:
/// a short message for people (`→ POST https://…`, `← 201 Created POST https://… (12.3 ms)`) and
/// swift-log metadata for log pipelines (`faraday.call.id`, `http.request.method`, `url.full`,
/// `http.response.status_code`, `http.client.request.duration`…); the levels and every key are in
/// <doc:IdentityAndObservability#Logging>.
///
/// - ``Detail`` chooses how much: the URL line only, with headers, or with bodies too.
/// - ``Redaction`` hides `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie` and
///   credential parameters and fields by default, in every line and in the cURL command.
/// - Bodies are cut at ``Handler/bodyLimit`` bytes; bodies that are not text are summarised.
/// - A streamed response is logged as it flows, one line per chunk with its size, never
///   buffered, and a summary at its end.
/// - The call's logger, with the call's metadata, becomes ``Env/logger``: the adapter's own lines
///   (AsyncHTTPClient's) carry the same `faraday.call.id` and URL.
/// - With ``Handler/logsCurl`` each request also carries an equivalent `curl` command.
/// - The logger's level is read when the stack is built: with ``Handler/level`` off then, calls
///   are not followed at all (nothing is timed or built per call) and only failures are logged.
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
        /// The level of request, response and end-of-stream lines (failures are logged at `.error`).
        public var level: Logging.Logger.Level
        /// The level of the line each chunk of a streamed response gets.
        public var chunkLevel: Logging.Logger.Level
        /// How much of each request is logged.
        public var request: Detail
        /// How much of each response is logged.
        public var response: Detail
        /// What is hidden.
        public var redaction: Redaction
        /// The most body bytes logged.
        public var bodyLimit: Int
        /// Whether each request line also carries a `curl` command (`faraday.curl`).
        public var logsCurl: Bool

        /// Creates the handler.
        public init(
            logger: Logging.Logger = Logging.Logger(label: "faraday"),
            level: Logging.Logger.Level = .info,
            chunkLevel: Logging.Logger.Level = .debug,
            request: Detail = .headers,
            response: Detail = .headers,
            redaction: Redaction = Redaction(),
            bodyLimit: Int = 4096,
            logsCurl: Bool = false
        ) {
            self.logger = logger
            self.level = level
            self.chunkLevel = chunkLevel
            self.request = request
            self.response = response
            self.redaction = redaction
            self.bodyLimit = bodyLimit
            self.logsCurl = logsCurl
        }

        /// The logger; with the logger's level off for ``level`` when the stack is built, a layer
        /// that follows no call (no timing, no lines built, nothing kept per call) and logs only
        /// failures (at `.error`), without their time.
        public func build(app: any App) -> any Middleware {
            let logger = HTTPLogger(app: app, handler: self)
            return logger.isFollowing ? logger : FailureLogger(logger: logger)
        }
    }

    /// Logs the request and starts the call's record, this layer's state for the call (two
    /// loggers in one stack keep two).
    public func onRequest(_ env: inout Env) throws -> CallLog {
        let call = CallLog(logger: callLogger(env))
        env.logger = call.logger
        try logRequest(env, call)
        return call
    }

    /// Logs the head, each chunk of a stream and its end.
    public func onComplete(_ env: inout Env, state call: CallLog) {
        log(env, call)
    }

    /// Logs the failure, with the call's time when it got as far as this layer's `onRequest`.
    public func onError(_ error: FaradayError, env: Env, state call: CallLog?) {
        logFailure(error, env, call)
    }

    /// Whether the logger's level lets the request and response lines through.
    fileprivate var isFollowing: Bool { handler.logger.logLevel <= handler.level }

    private func logRequest(_ env: Env, _ call: CallLog) throws {
        // Above an encoder the body is still a value: the log shows it encoded by the stack's
        // encoder, with its Content-Type, as it will go on the wire. A copy is encoded: what is sent
        // must not depend on the log level.
        var request = env.request
        if handler.request >= .headers || handler.logsCurl, request.body.value != nil {
            var display = env
            try display.encodeRequestBody()
            request = display.request
        }
        var metadata = Self.position(env)
        if let length = request.body.length, length > 0 { metadata["http.request.body.size"] = "\(length)" }
        if handler.request >= .headers { metadata["http.request.header"] = headers(request.headers) }
        if handler.request >= .bodies, let body = requestBody(request) { metadata["http.request.body"] = "\(body)" }
        if handler.logsCurl { metadata["faraday.curl"] = "\(request.curlCommand(redacting: handler.redaction))" }
        call.logger.log(level: handler.level, "→ \(summary(env))", metadata: metadata)
    }

    /// A completion: the head (with the first frame of a stream), a chunk, or the end of a stream.
    private func log(_ env: Env, _ call: CallLog) {
        guard let response = env.response else { return }
        let isStreamed = env.phase.frameIndex != nil || call.frames > 0
        if let index = env.phase.frameIndex {
            if index == 0 { logHead(env, response, call, streamed: true) }
            call.add(response.body.count)
            call.logger.log(
                level: handler.chunkLevel,
                "← chunk \(index): \(response.body.count) bytes",
                metadata: ["faraday.stream.chunk": "\(index)", "faraday.stream.chunk.size": "\(response.body.count)"]
            )
        } else if isStreamed {
            let elapsed = call.elapsed
            call.logger.log(
                level: handler.level,
                "← end of stream \(summary(env)): \(call.bytes) bytes in \(call.frames) chunks (\(elapsed.text))",
                metadata: [
                    "http.response.status_code": "\(response.status.code)",
                    "http.response.body.size": "\(call.bytes)",
                    "faraday.stream.chunks": "\(call.frames)",
                    "http.client.request.duration": "\(elapsed.seconds)",
                ]
            )
        } else {
            logHead(env, response, call, streamed: false)
        }
    }

    /// The failure line, with the call's time when it was followed.
    fileprivate func logFailure(_ error: FaradayError, _ env: Env, _ call: CallLog?) {
        guard handler.logger.logLevel <= .error else { return }
        let logger = call?.logger ?? callLogger(env)
        // Messages name URLs: the request's, or the error's own (a redirect's), redacted here too.
        var message = handler.redaction.scrub(error.message, of: env.request.url)
        if let url = error.url { message = handler.redaction.scrub(message, of: url) }
        var metadata: Logger.Metadata = ["error.type": "\(error.code)"]
        if let status = error.response?.status { metadata["http.response.status_code"] = "\(status.code)" }
        let elapsed = call?.elapsed
        if let elapsed { metadata["http.client.request.duration"] = "\(elapsed.seconds)" }
        logger.log(
            level: .error,
            "✗ \(summary(env)) failed\(elapsed.map { " after \($0.text)" } ?? ""): \(error.code): \(message)",
            metadata: metadata
        )
    }

    /// The handler's logger with the metadata every line of this call carries.
    private func callLogger(_ env: Env) -> Logger {
        var logger = handler.logger
        logger[metadataKey: "faraday.call.id"] = "\(env.callID)"
        logger[metadataKey: "http.request.method"] = "\(env.request.method.rawValue)"
        logger[metadataKey: "url.full"] = "\(handler.redaction.redacting(env.request.url))"
        return logger
    }

    /// Which attempt of a ``Retry`` and which hop of a ``FollowRedirects`` this is, when known.
    private static func position(_ env: Env) -> Logger.Metadata {
        var metadata: Logger.Metadata = [:]
        if let attempt = env.attempt { metadata["faraday.attempt"] = "\(attempt)" }
        if !env.redirects.isEmpty { metadata["faraday.redirect.hop"] = "\(env.redirects.count)" }
        return metadata
    }

    private func logHead(_ env: Env, _ response: ResponseData, _ call: CallLog, streamed: Bool) {
        let elapsed = call.elapsed
        var metadata = Self.position(env)
        metadata["http.response.status_code"] = "\(response.status.code)"
        metadata["http.client.request.duration"] = "\(elapsed.seconds)"
        if let cache = env.cacheStatus { metadata["faraday.cache.status"] = "\(cache.rawValue)" }
        if handler.response >= .headers { metadata["http.response.header"] = headers(response.headers) }
        if !streamed {
            metadata["http.response.body.size"] = "\(response.body.count)"
            if handler.response >= .bodies {
                metadata["http.response.body"] = "\(describe(response.body, contentType: response.headers.contentType))"
            }
        }
        let cache = env.cacheStatus.map { ", cache \($0.rawValue)" } ?? ""
        call.logger.log(
            level: handler.level,
            "← \(response.status.code) \(response.status.reasonPhrase) \(summary(env)) (\(elapsed.text)\(cache))",
            metadata: metadata
        )
    }

    private func summary(_ env: Env) -> String {
        "\(env.request.method.rawValue) \(handler.redaction.redacting(env.request.url))"
    }

    /// Redacted fields by lowercased name; a name sent more than once keeps each value.
    private func headers(_ fields: HTTPFields) -> Logger.MetadataValue {
        var values: [String: [String]] = [:]
        for field in handler.redaction.redact(fields) {
            values[field.name.canonicalName, default: []].append(field.value)
        }
        return .dictionary(values.mapValues { $0.count == 1 ? .string($0[0]) : .array($0.map { .string($0) }) })
    }

    private func requestBody(_ request: Request) -> String? {
        if let bytes = request.body.bytesInMemory {
            return bytes.isEmpty ? nil : describe(bytes, contentType: request.headers.contentType)
        }
        return "(streamed body\(request.body.length.map { " of \($0) bytes" } ?? ""))"
    }

    /// A body as redacted text cut at the limit, or a summary when it is not text.
    private func describe(_ body: Data, contentType: String?) -> String {
        guard !body.isEmpty else { return "(empty body)" }
        guard let text = handler.redaction.redactBody(body, contentType: contentType) else {
            return "(binary body, \(body.count) bytes\(contentType.map { ", \($0)" } ?? ""))"
        }
        let utf8 = Array(text.utf8)
        guard utf8.count > handler.bodyLimit else { return text }
        return String(decoding: utf8.prefix(handler.bodyLimit), as: UTF8.self)
            + "… (\(utf8.count - handler.bodyLimit) more bytes)"
    }

}

extension HTTPLogger {
    /// One call's record in an ``HTTPLogger``: its logger and start, and how much of its stream
    /// has passed.
    public final class CallLog: Sendable {
        let logger: Logger
        private let started = ContinuousClock.now
        private let counts = Locked((frames: 0, bytes: 0))

        init(logger: Logger) {
            self.logger = logger
        }

        func add(_ bytes: Int) {
            counts.withLock {
                $0.frames += 1
                $0.bytes += bytes
            }
        }
        var frames: Int { counts.withLock { $0.frames } }
        var bytes: Int { counts.withLock { $0.bytes } }

        /// The time since the call started, for people (`12.3 ms`) and for metadata (seconds).
        var elapsed: (text: String, seconds: String) {
            let duration = ContinuousClock.now - started
            let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
            return ((seconds * 1000).fixed(1) + " ms", seconds.fixed(6))
        }
    }
}

/// ``HTTPLogger`` with its level off: a failure is still logged, at `.error`.
private struct FailureLogger: Middleware {
    let logger: HTTPLogger
    var app: any App { logger.app }

    func onError(_ error: FaradayError, env: Env) {
        logger.logFailure(error, env, nil)
    }
}

extension Logging.Logger {
    /// ``HTTPLogger/Handler``, by the original Swift Faraday's name:
    /// `connection.use(handler: Logger.Handler())`.
    public typealias Handler = HTTPLogger.Handler
}
