import Foundation

/// One server-sent event (WHATWG HTML, "Server-sent events").
public struct ServerSentEvent: Sendable, Hashable {
    /// The event type (`event:`), `message` by default.
    public var type: String
    /// The data (`data:` lines joined with LF).
    public var data: String
    /// The last event ID (`id:`), as the stream has set it so far.
    public var lastEventID: String
    /// The reconnection time the stream asked for (`retry:`) with this event, if it did.
    public var retry: Duration?

    /// Creates an event.
    public init(type: String = "message", data: String, lastEventID: String = "", retry: Duration? = nil) {
        self.type = type
        self.data = data
        self.lastEventID = lastEventID
        self.retry = retry
    }
}

/// The event-stream parser of the WHATWG spec: UTF-8 (an initial BOM dropped), lines ending in
/// CRLF, LF or CR, comments, `event`, `data`, `id` and `retry` fields, and an event dispatched
/// at each blank line. A stream that ends inside an event drops that event, as the spec says.
/// Bytes that are not UTF-8 fail the call (``FaradayError/Code/invalidResponse``).
struct ServerSentEventFramer: Framer {
    let maxFrameSize: Int
    private var buffer = Data()
    private var atStart = true
    private var skipLineFeed = false
    private var type = ""
    private var data = ""
    private var hasData = false
    private var lastEventID = ""
    private var retry: Duration?
    private var eventSize = 0

    init(maxFrameSize: Int) { self.maxFrameSize = maxFrameSize }

    mutating func frames(from chunk: Data) throws(FaradayError) -> [Frame] {
        buffer.append(chunk)
        if atStart {
            guard buffer.count >= 3 || !Data([0xEF, 0xBB, 0xBF]).starts(with: buffer) else { return [] }
            if buffer.starts(with: [0xEF, 0xBB, 0xBF]) { buffer.removeFirst(3) }
            atStart = false
        }
        var frames: [Frame] = []
        var start = buffer.startIndex
        var index = start
        while index < buffer.endIndex {
            let byte = buffer[index]
            if skipLineFeed {
                skipLineFeed = false
                if byte == 0x0A {
                    index += 1
                    start = index
                    continue
                }
            }
            if byte == 0x0A || byte == 0x0D {
                try line(buffer[start..<index], into: &frames)
                skipLineFeed = byte == 0x0D
                index += 1
                start = index
            } else {
                index += 1
            }
        }
        buffer = Data(buffer[start...])
        guard buffer.count + eventSize <= maxFrameSize else { throw .frameTooLarge(maxFrameSize) }
        return frames
    }

    mutating func finish() -> [Frame] { [] }  // an unfinished event is dropped

    private mutating func line(_ bytes: Data, into frames: inout [Frame]) throws(FaradayError) {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw FaradayError(.invalidResponse, "The event stream has bytes that are not UTF-8.")
        }
        if text.isEmpty {
            dispatch(into: &frames)
            return
        }
        if text.hasPrefix(":") { return }
        let field: Substring
        var value: Substring
        if let colon = text.firstIndex(of: ":") {
            field = text[..<colon]
            value = text[text.index(after: colon)...]
            if value.hasPrefix(" ") { value = value.dropFirst() }
        } else {
            field = Substring(text)
            value = ""
        }
        eventSize += bytes.count
        guard eventSize <= maxFrameSize else { throw .frameTooLarge(maxFrameSize) }
        switch field {
        case "event": type = String(value)
        case "data":
            data += value + "\n"
            hasData = true
        case "id": if !value.contains("\u{0}") { lastEventID = String(value) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ $0.isASCII && $0.isNumber }), let milliseconds = Int64(value) {
                retry = .milliseconds(milliseconds)
            }
        default: break
        }
    }

    private mutating func dispatch(into frames: inout [Frame]) {
        defer {
            type = ""
            data = ""
            hasData = false
            retry = nil
            eventSize = 0
        }
        guard hasData else { return }
        if data.hasSuffix("\n") { data.removeLast() }
        let event = ServerSentEvent(type: type.isEmpty ? "message" : type, data: data, lastEventID: lastEventID, retry: retry)
        frames.append(Frame(Data(data.utf8), event: event))
    }
}

/// Where the framing puts a completion's server-sent event.
enum ServerSentEventKey: EnvKey { typealias Value = ServerSentEvent }

extension Env {
    /// The server-sent event of this completion, for ``Streaming/serverSentEvents``.
    public var serverSentEvent: ServerSentEvent? { self[ServerSentEventKey.self] }
}
