#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
/// Bytes that are not UTF-8 are decoded as U+FFFD, as the spec decodes the stream.
struct ServerSentEventFramer: FrameCutter {
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

    /// Shared with the ``EventSource`` this stream belongs to, across its reconnections.
    private let state: EventStreamState?

    init(maxFrameSize: Int, state: EventStreamState? = nil) {
        self.maxFrameSize = maxFrameSize
        self.state = state
        // WHATWG HTML §9.2: the last event ID buffer survives a reconnection.
        self.lastEventID = state?.lastEventID ?? ""
    }

    mutating func frames(from chunk: Data) throws(FaradayError) -> [Frame] {
        // The bytes before `searched` hold no line end: the search resumes after them, so a line
        // dripped a byte at a time costs its length, not its length squared.
        var searched = buffer.count
        buffer.append(chunk)
        if atStart {
            guard buffer.count >= 3 || !Data([0xEF, 0xBB, 0xBF]).starts(with: buffer) else { return [] }
            if buffer.starts(with: [0xEF, 0xBB, 0xBF]) { buffer.removeFirst(3) }
            atStart = false
            searched = 0  // nothing was searched while the BOM was awaited
        }
        // Lines are cut and read on the contiguous bytes: every operation on `Data` itself goes
        // through its storage's checks, which cost more than the parsing.
        let pending = buffer
        var frames: [Frame] = []
        var failure: FaradayError?
        let rest = pending.withUnsafeBytes { raw in
            var start = 0
            for index in searched..<raw.count {
                let byte = raw[index]
                if skipLineFeed {
                    skipLineFeed = false
                    if byte == 0x0A {
                        start = index + 1
                        continue
                    }
                }
                guard byte == 0x0A || byte == 0x0D else { continue }
                do throws(FaradayError) {
                    try line(UnsafeRawBufferPointer(rebasing: raw[start..<index]), into: &frames)
                } catch {
                    failure = error
                    break
                }
                skipLineFeed = byte == 0x0D
                start = index + 1
            }
            return start
        }
        if let failure { throw failure }
        if rest > 0 { buffer = Data(pending[(pending.startIndex + rest)...]) }
        guard buffer.count + eventSize <= maxFrameSize else { throw .frameTooLarge(maxFrameSize) }
        return frames
    }

    mutating func finish() -> [Frame] { [] }  // an unfinished event is dropped

    /// One line of the stream: a field, a comment, or (empty) the end of an event. The field's
    /// name is matched on its bytes and only its value becomes a `String`.
    private mutating func line(_ bytes: UnsafeRawBufferPointer, into frames: inout [Frame]) throws(FaradayError) {
        guard !bytes.isEmpty else {
            dispatch(into: &frames)
            return
        }
        let colon = bytes.firstIndex(of: UInt8(ascii: ":"))
        let name = UnsafeRawBufferPointer(rebasing: bytes[..<(colon ?? bytes.endIndex)])
        var valueStart = colon.map { $0 + 1 } ?? bytes.endIndex
        if valueStart < bytes.endIndex, bytes[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
        let field = Field(name)
        if name.isEmpty { return }  // a comment
        // The stream is decoded as UTF-8 with invalid bytes as U+FFFD, as the spec decodes it.
        let value = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[valueStart...]), as: UTF8.self)
        eventSize += bytes.count
        guard eventSize <= maxFrameSize else { throw .frameTooLarge(maxFrameSize) }
        switch field {
        case .event: type = value
        case .data:
            data += value
            data += "\n"
            hasData = true
        case .id: if !value.utf8.contains(0) { lastEventID = value }
        case .retry:
            if !value.isEmpty, value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                let milliseconds = Int64(value)
            {
                retry = .milliseconds(milliseconds)
                state?.setReconnectionTime(.milliseconds(milliseconds))  // at once, event or not
            }
        case .other: break
        }
    }

    /// The fields the framer reads; every other name is ignored.
    private enum Field {
        case event, data, id, retry, other

        init(_ name: UnsafeRawBufferPointer) {
            let matches = { (field: StaticString) in
                name.elementsEqual(UnsafeRawBufferPointer(start: field.utf8Start, count: field.utf8CodeUnitCount))
            }
            if matches("data") {
                self = .data
            } else if matches("event") {
                self = .event
            } else if matches("id") {
                self = .id
            } else if matches("retry") {
                self = .retry
            } else {
                self = .other
            }
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
        // The last event ID is set at every blank line, whether an event is dispatched or not.
        state?.lastEventID = lastEventID
        guard hasData else { return }
        if data.hasSuffix("\n") { data.removeLast() }
        let event = ServerSentEvent(
            type: type.isEmpty ? "message" : type,
            data: data,
            lastEventID: lastEventID,
            retry: retry
        )
        frames.append(Frame(data.utf8Data, event: event))
    }
}

/// What an ``EventSource`` keeps across its connections (WHATWG HTML §9.2): the last event ID
/// and the reconnection time the server asked for, written by each connection's framer as its
/// fields arrive.
final class EventStreamState: Sendable {
    private let state = Locked<(lastEventID: String, reconnectionTime: Duration?)>(("", nil))

    /// The last event ID, sent as `Last-Event-ID` on reconnection.
    var lastEventID: String {
        get { state.withLock { $0.lastEventID } }
        set { state.withLock { $0.lastEventID = newValue } }
    }

    /// The reconnection time of the last `retry:` field, if any.
    var reconnectionTime: Duration? { state.withLock { $0.reconnectionTime } }

    func setReconnectionTime(_ time: Duration) { state.withLock { $0.reconnectionTime = time } }
}

/// Where the framing puts a completion's server-sent event.
enum ServerSentEventKey: EnvKey { typealias Value = ServerSentEvent }

extension Env {
    /// Makes this env the completion of `frame`: its body, and its event for server-sent events.
    mutating func setFrame(_ frame: Frame) {
        response?.body = frame.body
        if let event = frame.event { self[ServerSentEventKey.self] = event }
    }
}

extension Env {
    /// The server-sent event of this completion, for ``Streaming/serverSentEvents``.
    public var serverSentEvent: ServerSentEvent? { self[ServerSentEventKey.self] }
}
