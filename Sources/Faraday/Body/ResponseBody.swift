#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A response's body as it is handed up the stack: what an adapter returns with
/// ``Completions/streamed(head:body:)``, what a ``StubResponse`` answers and what a
/// ``CacheEntry`` holds.
///
/// The bytes are in memory (whole, or in the pieces they came in), a range of a file (read a
/// piece at a time, so that a large body is never held whole), or a live stream that can be read
/// once. The stack cuts it into completions as the request asks: one for a buffered response, one
/// per frame for a streamed one.
///
/// ```swift
/// StubResponse(body: ResponseBody(pieces: [Data("a".utf8), Data("b".utf8)]))
/// ```
public struct ResponseBody: Sendable {
    enum Storage: Sendable {
        case pieces([Data])
        case file(URL, offset: Int, length: Int)
        case stream(ByteStream, length: Int?)
    }

    let storage: Storage

    /// A body of `data`, in one piece.
    public init(_ data: Data) {
        storage = .pieces(data.isEmpty ? [] : [data])
    }

    /// A body of UTF-8 `text`.
    public init(_ text: String) {
        self.init(Data(text.utf8))
    }

    /// A body in memory that streamed requests receive in these pieces, one completion each (as
    /// a server's chunks would come).
    public init(pieces: [Data]) {
        storage = .pieces(pieces.filter { !$0.isEmpty })
    }

    /// `length` bytes of `file` from `offset`, read a piece at a time when served.
    public init(file: URL, offset: Int = 0, length: Int) {
        storage = .file(file, offset: offset, length: length)
    }

    /// A live body, read once: its pieces as `stream` yields them; `length` when it is known.
    public init(stream: ByteStream, length: Int? = nil) {
        storage = .stream(stream, length: length)
    }

    /// No bytes.
    public static let empty = ResponseBody(pieces: [])

    /// The length in bytes, when it is known (always, but for a stream of unknown length).
    public var length: Int? {
        switch storage {
        case .pieces(let pieces): pieces.reduce(0) { $0 + $1.count }
        case .file(_, _, let length): length
        case .stream(_, let length): length
        }
    }

    /// Whether the bytes are in memory (not in a file or a stream).
    package var isInMemory: Bool {
        if case .pieces = storage { return true }
        return false
    }

    /// The bytes `range` of a body in memory or in a file (a file's range stays in the file);
    /// `nil` for a live stream or a range past the end.
    package func slice(_ range: Range<Int>) -> ResponseBody? {
        guard range.lowerBound >= 0, let length, range.upperBound <= length else { return nil }
        switch storage {
        case .pieces:
            guard let bytes = bytes() else { return nil }
            return ResponseBody(
                bytes.subdata(in: (bytes.startIndex + range.lowerBound)..<(bytes.startIndex + range.upperBound))
            )
        case .file(let url, let offset, _):
            return ResponseBody(file: url, offset: offset + range.lowerBound, length: range.count)
        case .stream:
            return nil
        }
    }

    /// Whether the body can be read again: `false` for a live stream.
    public var isReplayable: Bool {
        if case .stream = storage { return false }
        return true
    }

    /// The whole body in memory, read at once; `nil` for a live stream (read it with
    /// ``collect(upTo:)``) and for a file that cannot be read whole (removed meanwhile).
    public func bytes() -> Data? {
        switch storage {
        case .pieces(let pieces): return pieces.count == 1 ? pieces[0] : pieces.reduce(into: Data()) { $0.append($1) }
        case .file(let url, let offset, let length):
            guard let handle = try? OpenFile(forReadingFrom: url) else { return nil }
            defer { try? handle.close() }
            guard (try? handle.seek(toOffset: UInt64(offset))) != nil,
                let data = try? handle.read(upToCount: length) ?? Data(), data.count == length
            else { return nil }
            return data
        case .stream: return nil
        }
    }

    /// The whole body, read to its end; fails with ``FaradayError/Code/bodyTooLarge`` past
    /// `limit` bytes.
    public func collect(upTo limit: Int) async throws(FaradayError) -> Data {
        try await pieces().collect(upTo: limit, "The response body")
    }

    /// The body's pieces: those in memory as they are, a file's in reads of at most `size`
    /// bytes, a stream's as it yields them.
    public func pieces(size: Int = 64 * 1024) -> ByteStream {
        if case .stream(let stream, _) = storage { return stream }
        return ByteStream(StoredPieces(storage: storage, size: size))
    }
}

/// The pieces of a body in memory or in a file.
private struct StoredPieces: AsyncSequence, Sendable {
    let storage: ResponseBody.Storage
    let size: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        let storage: ResponseBody.Storage
        let size: Int
        var index = 0
        var handle: OpenFile?
        var remaining: Int?

        mutating func next() async throws -> Data? {
            switch storage {
            case .pieces(let pieces):
                guard index < pieces.count else { return nil }
                index += 1
                return pieces[index - 1]
            case .file(let url, let offset, let length):
                // File calls block: off an adapter's event loop when the reader runs on one.
                if handle == nil {
                    handle = try await Offload.run {
                        let handle = try OpenFile(forReadingFrom: url)
                        try handle.seek(toOffset: UInt64(offset))
                        return handle
                    }
                    remaining = length
                }
                guard let handle, let left = remaining, left > 0 else {
                    try? handle?.close()
                    return nil
                }
                let count = Swift.min(size, left)
                let piece = try await Offload.run { try handle.read(upToCount: count) } ?? Data()
                guard !piece.isEmpty else {
                    try? handle.close()
                    throw FaradayError(.storageFailed, "The stored body ended early: its file was cut short.")
                }
                remaining = left - piece.count
                return piece
            case .stream:
                return nil  // `pieces(size:)` hands a stream out as it is
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(storage: storage, size: size) }
}
