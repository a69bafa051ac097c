import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A server-sent event stream that stays connected: when the server closes the stream or the
/// connection fails, it reconnects after the server's `retry` interval with `Last-Event-ID`,
/// so no event is lost or repeated, until the consuming task is cancelled (WHATWG `EventSource`).
///
/// ```swift
/// for try await event in connection.eventSource("notifications") {
///     print(event.type, event.data)
/// }
/// ```
///
/// It stops (ends the sequence) when the server answers 204 No Content. It fails with a
/// ``FaradayError``: ``FaradayError/Code/invalidResponse`` on any other status than 200 or a
/// content type other than `text/event-stream`, ``FaradayError/Code/connectionFailed`` after
/// ``maxReconnects`` reconnections in a row without an event, and
/// ``FaradayError/Code/cancelled`` when the consuming task is cancelled.
public struct EventSource: AsyncSequence, Sendable {
    /// One event of the stream.
    public typealias Element = ServerSentEvent
    /// Every failure is a ``FaradayError``.
    public typealias Failure = FaradayError

    let connection: Connection
    let path: String
    let headers: HTTPFields
    /// The wait before reconnecting until the server sets one with `retry:`.
    public var reconnectionTime: Duration
    /// How many reconnections in a row may bring no event before the stream fails.
    public var maxReconnects: Int
    /// The streaming options (frame size, idle timeout) of each connection.
    public var streaming: Streaming

    init(connection: Connection, path: String, headers: HTTPFields) {
        self.connection = connection
        self.path = path
        self.headers = headers
        self.reconnectionTime = .seconds(3)
        self.maxReconnects = 10
        self.streaming = .serverSentEvents
    }

    /// Pulls events, connecting and reconnecting as needed.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// Every failure is a ``FaradayError``.
        public typealias Failure = FaradayError

        private let source: EventSource
        private var current: Response.CompletionSequence.AsyncIterator?
        /// The last event ID and reconnection time, kept by each connection's framer.
        private let state = EventStreamState()
        private var failedReconnects = 0
        private var isFinished = false

        init(_ source: EventSource) {
            self.source = source
        }

        /// The next event, reconnecting as often as it takes; `nil` once the server answers 204.
        ///
        /// - Throws: ``FaradayError/Code/connectionFailed`` once ``EventSource/maxReconnects``
        ///   reconnections in a row brought no event; see ``EventSource`` for the others.
        public mutating func next() async throws(FaradayError) -> ServerSentEvent? {
            do {
                return try await nextEvent()
            } catch {
                throw FaradayError.wrapping(error)
            }
        }

        private mutating func nextEvent() async throws -> ServerSentEvent? {
            while !isFinished {
                try Task.checkCancellation()
                if current == nil {
                    try await connect()
                    guard !isFinished else { return nil }
                    // The server was away: `connect` counted the attempt and waited already.
                    if current == nil { continue }
                }
                do {
                    if let env = try await current?.next(), !env.isFinal {
                        guard let event = env.serverSentEvent else { continue }
                        failedReconnects = 0
                        return event
                    }
                } catch {
                    // A cancel or an oversized frame ends the stream; a dropped connection
                    // reconnects below, as the spec says.
                    if error.code == .cancelled || error.code == .frameTooLarge { throw error }
                }
                current = nil
                try await pauseBeforeReconnecting()
            }
            return nil
        }

        private mutating func connect() async throws {
            var headers = source.headers
            headers[.accept] = "text/event-stream"
            headers[.cacheControl] = "no-cache"
            let lastEventID = state.lastEventID
            if !lastEventID.isEmpty, let name = HTTPField.Name("Last-Event-ID") { headers[name] = lastEventID }
            var streaming = source.streaming
            streaming.eventStreamState = state
            let response = source.connection.get(source.path, headers: headers) { $0.options.streaming = streaming }
            do {
                let head = try await response.head
                let status = head.status?.code ?? 0
                if status == 204 {
                    isFinished = true
                    return
                }
                guard status == 200, head.responseHeaders.contentType == "text/event-stream" else {
                    throw FaradayError(
                        .invalidResponse,
                        "The event stream answered \(status) with \(head.responseHeaders.contentType ?? "no content type"); expected 200 text/event-stream.",
                        method: .get,
                        url: head.request.url,
                        response: head.response
                    )
                }
                current = response.completions.makeAsyncIterator()
            } catch let error as FaradayError where error.code == .connectionFailed || error.isTimeout {
                try await pauseBeforeReconnecting()  // the server is away: try again later
            }
        }

        private mutating func pauseBeforeReconnecting() async throws {
            failedReconnects += 1
            guard failedReconnects <= source.maxReconnects else {
                throw FaradayError(
                    .connectionFailed,
                    "The event stream could not be resumed after \(source.maxReconnects) attempts."
                )
            }
            try await Task.sleep(for: state.reconnectionTime ?? source.reconnectionTime)
        }
    }

    /// Makes an iterator; each one opens its own stream.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(self) }
}

extension Connection {
    /// A server-sent event stream from `path` that reconnects with `Last-Event-ID` until the
    /// consuming task is cancelled. See ``EventSource``.
    public func eventSource(_ path: String, headers: HTTPFields = HTTPFields()) -> EventSource {
        EventSource(connection: self, path: path, headers: headers)
    }
}

extension EventSource: CustomReflectable {
    /// The stream's settings, with its path (often `?access_token=…`) and headers redacted.
    public var customMirror: Mirror {
        let redaction = Redaction()
        return Mirror(
            self,
            children: [
                "path": redaction.redacting(urlText: path), "headers": redaction.redact(headers),
                "reconnectionTime": reconnectionTime, "maxReconnects": maxReconnects,
            ],
            displayStyle: .struct
        )
    }
}
