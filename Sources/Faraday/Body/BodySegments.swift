#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A piece of a request body: bytes in memory, or a file of known length read when sent.
enum Segment: Sendable {
    case bytes(Data)
    case file(URL, length: Int)

    var length: Int {
        switch self {
        case .bytes(let data): data.count
        case .file(_, let length): length
        }
    }

    /// The size of a readable regular file.
    static func fileLength(_ url: URL) throws(FaradayError) -> Int {
        guard let status = FileSignature(itemAt: url.path), status.isRegularFile,
            FileManager.default.isReadableFile(atPath: url.path)
        else {
            throw FaradayError(
                .encodingFailed,
                "The file \(url.path) does not exist or is not a readable regular file."
            )
        }
        return Int(status.size)
    }
}

/// The chunks of a body made of segments: each in-memory segment whole, each file in 256 KiB
/// reads, failing if a file's size changed since it was measured.
struct SegmentChunks: AsyncSequence, Sendable {
    typealias Element = Data
    static let readSize = 256 * 1024

    let segments: [Segment]

    struct AsyncIterator: AsyncIteratorProtocol {
        var segments: ArraySlice<Segment>
        var file: (handle: OpenFile, url: URL, remaining: Int)?

        mutating func next() async throws -> Data? {
            while true {
                if let open = file {
                    if let chunk = try await read(open) { return chunk }
                    continue
                }
                guard let segment = segments.popFirst() else { return nil }
                switch segment {
                case .bytes(let data): return data
                case .file(let url, let length):
                    // File calls block: off an adapter's event loop when the sender runs on one.
                    guard let handle = await Offload.run({ try? OpenFile(forReadingFrom: url) }) else {
                        throw FaradayError(.encodingFailed, "The file \(url.path) could not be opened.")
                    }
                    file = (handle, url, length)
                }
            }
        }

        /// The next chunk of the open file, or `nil` when it ended at exactly its expected length.
        private mutating func read(_ open: (handle: OpenFile, url: URL, remaining: Int)) async throws -> Data? {
            let chunk = try await Offload.run { try open.handle.read(upToCount: SegmentChunks.readSize) } ?? Data()
            if chunk.isEmpty {
                try? open.handle.close()
                file = nil
                guard open.remaining == 0 else { throw Self.changed(open.url) }
                return nil
            }
            guard chunk.count <= open.remaining else { throw Self.changed(open.url) }
            file?.remaining -= chunk.count
            return chunk
        }

        private static func changed(_ url: URL) -> FaradayError {
            FaradayError(.encodingFailed, "The file \(url.path) changed size while it was being sent.")
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(segments: segments[...]) }
}

extension RequestBody {
    /// A file read from disk in chunks each time the body is sent (replayable), with its size
    /// as `Content-Length` and its media type if it has one.
    ///
    /// - Throws: ``FaradayError/Code/encodingFailed`` when the file is missing or not a readable
    ///   regular file. A file whose size changes before it is sent fails that send.
    public static func file(_ url: URL, contentType: String? = nil) throws(FaradayError) -> RequestBody {
        let segments = [Segment.file(url, length: try Segment.fileLength(url))]
        var body = RequestBody.stream(length: segments[0].length) { SegmentChunks(segments: segments) }
        body.contentType = contentType
        return body
    }
}
