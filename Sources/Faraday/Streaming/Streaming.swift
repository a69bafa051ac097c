#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Asks for a streamed response and says how it is cut into frames, one completion each.
///
/// ```swift
/// var streaming = Streaming.serverSentEvents
/// streaming.idleTimeout = .seconds(30)
/// connection.get("events") { $0.options.streaming = streaming }
/// ```
///
/// Frames are cut after any byte-level middleware (``Decompression``) and before the
/// `onComplete` hooks, so ``DecodeJSON`` decodes each JSON frame.
public struct Streaming: Sendable {
    enum Kind: Sendable {
        case chunks, lines, ndjson, serverSentEvents, jsonSequence
        case custom(@Sendable (Int) -> any Framer)
    }

    let kind: Kind
    /// The largest frame accepted; a longer one fails the call with
    /// ``FaradayError/Code/frameTooLarge`` (raw chunks are not limited).
    public var maxFrameSize: Int
    /// Stop after this many frames: the transfer is stopped and the final completion follows.
    public var maxFrames: Int?
    /// The longest wait for the next frame; past it the call fails with
    /// ``FaradayError/Code/readTimeout``.
    public var idleTimeout: Duration?
    /// What an ``EventSource`` keeps across its connections, read and written by the framer of
    /// each one; `nil` for a single stream.
    var eventStreamState: EventStreamState?

    init(_ kind: Kind) {
        self.kind = kind
        self.maxFrameSize = 1 << 20
    }

    /// The chunks as the adapter receives them from the network.
    public static let chunks = Streaming(.chunks)
    /// One frame per line (LF or CRLF ends a line; the terminator is not part of the frame).
    public static let lines = Streaming(.lines)
    /// Newline-delimited JSON: one frame per non-empty line.
    public static let ndjson = Streaming(.ndjson)
    /// Server-sent events (`text/event-stream`): one frame per event, its `data` as the body and
    /// the whole event in ``Env/serverSentEvent``.
    public static let serverSentEvents = Streaming(.serverSentEvents)
    /// JSON text sequences (RFC 7464): one frame per record.
    public static let jsonSequence = Streaming(.jsonSequence)

    /// Frames cut by your own ``Framer``, made afresh for each response with the
    /// ``maxFrameSize`` it must enforce.
    public static func custom(_ makeFramer: @escaping @Sendable (_ maxFrameSize: Int) -> any Framer) -> Streaming {
        Streaming(.custom(makeFramer))
    }

    /// A new framer that cuts a stream the way this kind does (for the stack, and fuzzing).
    package func makeFramer() -> any FrameCutter {
        switch kind {
        case .chunks: ChunkFramer()
        case .lines: LineFramer(maxFrameSize: maxFrameSize, skipsEmptyLines: false)
        case .ndjson: LineFramer(maxFrameSize: maxFrameSize, skipsEmptyLines: true)
        case .serverSentEvents: ServerSentEventFramer(maxFrameSize: maxFrameSize, state: eventStreamState)
        case .jsonSequence: JSONSequenceFramer(maxFrameSize: maxFrameSize)
        case .custom(let make): CustomFramer(base: make(maxFrameSize))
        }
    }
}

/// Cuts a byte stream into frames, for ``Streaming/custom(_:)``: each frame is the body of one
/// completion. A framer is made for one response and fed its chunks in order.
public protocol Framer {
    /// The frames that `chunk` completes (none, one or several).
    mutating func frames(from chunk: Data) throws(FaradayError) -> [Data]
    /// The frames left when the stream ends.
    mutating func finish() throws(FaradayError) -> [Data]
}

/// How the stack cuts frames: a ``Framer``'s, and the package's own, whose frames may carry a
/// server-sent event.
package protocol FrameCutter {
    /// The frames that `chunk` completes (none, one or several).
    mutating func frames(from chunk: Data) throws(FaradayError) -> [Frame]
    /// The frames left when the stream ends.
    mutating func finish() throws(FaradayError) -> [Frame]
}

/// A custom ``Framer`` as the stack runs it.
private struct CustomFramer: FrameCutter {
    var base: any Framer

    mutating func frames(from chunk: Data) throws(FaradayError) -> [Frame] {
        try base.frames(from: chunk).map { Frame($0) }
    }

    mutating func finish() throws(FaradayError) -> [Frame] {
        try base.finish().map { Frame($0) }
    }
}

/// One frame of a streamed response, as the stack cuts it: the body of a completion, and the
/// event it came from for server-sent events (``Env/event``).
package struct Frame: Sendable {
    /// The frame's bytes.
    package var body: Data
    /// The server-sent event, for ``Streaming/serverSentEvents``.
    package var event: ServerSentEvent?

    /// Creates a frame.
    package init(_ body: Data, event: ServerSentEvent? = nil) {
        self.body = body
        self.event = event
    }
}

extension FaradayError {
    static func frameTooLarge(_ limit: Int) -> FaradayError {
        FaradayError(.frameTooLarge, "A streamed frame is larger than \(limit) bytes (Streaming.maxFrameSize).")
    }
}

/// Each chunk as it came.
struct ChunkFramer: FrameCutter {
    func frames(from chunk: Data) -> [Frame] { chunk.isEmpty ? [] : [Frame(chunk)] }
    func finish() -> [Frame] { [] }
}

/// Lines ending in LF (a CR before it is dropped).
struct LineFramer: FrameCutter {
    let maxFrameSize: Int
    let skipsEmptyLines: Bool
    private var lines: SeparatedRecords

    init(maxFrameSize: Int, skipsEmptyLines: Bool) {
        self.maxFrameSize = maxFrameSize
        self.skipsEmptyLines = skipsEmptyLines
        self.lines = SeparatedRecords(separator: UInt8(ascii: "\n"), maxSize: maxFrameSize)
    }

    mutating func frames(from chunk: Data) throws(FaradayError) -> [Frame] {
        var frames: [Frame] = []
        for line in try lines.split(chunk) { try emit(line, into: &frames) }
        return frames
    }

    mutating func finish() throws(FaradayError) -> [Frame] {
        var frames: [Frame] = []
        let rest = lines.takePending()
        if !rest.isEmpty { try emit(rest, into: &frames) }
        return frames
    }

    private func emit(_ line: Data, into frames: inout [Frame]) throws(FaradayError) {
        var line = line
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        guard line.count <= maxFrameSize else { throw .frameTooLarge(maxFrameSize) }
        if skipsEmptyLines && line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }
        frames.append(Frame(Data(line)))
    }
}

/// RFC 7464 records: each starts with RS (0x1E); the text up to the next RS is one JSON text.
struct JSONSequenceFramer: FrameCutter {
    let maxFrameSize: Int
    private var records: SeparatedRecords
    private var started = false

    init(maxFrameSize: Int) {
        self.maxFrameSize = maxFrameSize
        self.records = SeparatedRecords(separator: 0x1E, maxSize: maxFrameSize)
    }

    mutating func frames(from chunk: Data) throws(FaradayError) -> [Frame] {
        var frames: [Frame] = []
        for record in try records.split(chunk) {
            if started { try emit(record, into: &frames) }  // what precedes the first RS is no record
            started = true
        }
        return frames
    }

    mutating func finish() throws(FaradayError) -> [Frame] {
        var frames: [Frame] = []
        let rest = records.takePending()
        if started { try emit(rest, into: &frames) }
        return frames
    }

    /// A record cut from one chunk is checked here: the buffer check only sees what is left over.
    private func emit(_ record: Data, into frames: inout [Frame]) throws(FaradayError) {
        let trimmed = record.trimmingWhitespace()
        guard trimmed.count <= maxFrameSize else { throw .frameTooLarge(maxFrameSize) }
        if !trimmed.isEmpty { frames.append(Frame(trimmed)) }
    }
}

/// The records of a byte stream that a separator byte ends (lines, RFC 7464 records), cut chunk
/// by chunk. The unfinished record is kept between chunks and each chunk is searched alone, so a
/// record dripped a byte at a time costs its length, not its length squared.
struct SeparatedRecords {
    let separator: UInt8
    let maxSize: Int
    /// The unfinished record so far, holding no separator.
    private var pending = Data()

    init(separator: UInt8, maxSize: Int) {
        self.separator = separator
        self.maxSize = maxSize
    }

    /// The records `chunk` ends, without their separators (the pending bytes joined to the first);
    /// what follows the last separator is kept. An unfinished record longer than `maxSize` fails
    /// with ``FaradayError/Code/frameTooLarge``.
    mutating func split(_ chunk: Data) throws(FaradayError) -> [Data] {
        let separators = chunk.indices(of: separator)
        guard let last = separators.last else {
            guard pending.count + chunk.count <= maxSize else { throw .frameTooLarge(maxSize) }
            pending.append(chunk)
            return []
        }
        var records: [Data] = []
        var start = chunk.startIndex
        for end in separators {
            if pending.isEmpty {
                records.append(chunk[start..<end])
            } else {
                pending.append(chunk[start..<end])
                records.append(pending)
                pending = Data()
            }
            start = end + 1
        }
        pending = Data(chunk[(last + 1)...])
        guard pending.count <= maxSize else { throw .frameTooLarge(maxSize) }
        return records
    }

    /// The unfinished record, taken out when the stream ends.
    mutating func takePending() -> Data {
        defer { pending = Data() }
        return pending
    }
}

extension Data {
    /// The indices of every `byte`, found on the contiguous bytes: `Data`'s own collection
    /// methods go through its representation for every byte, ten times slower.
    fileprivate func indices(of byte: UInt8) -> [Index] {
        withUnsafeBytes { raw in
            var found: [Index] = []
            for offset in raw.indices where raw[offset] == byte { found.append(startIndex + offset) }
            return found
        }
    }

    /// Without leading and trailing JSON whitespace.
    fileprivate func trimmingWhitespace() -> Data {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return Data()
        }
        return Data(self[first...last])
    }
}
