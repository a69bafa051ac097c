import Foundation
import HTTPTypes

extension MultipartForm {
    /// The form as a request body: a replayable stream of known length.
    ///
    /// Files are checked now (they must exist and be readable regular files) and read in chunks
    /// each time the body is sent; a file whose size changed by then fails the upload rather
    /// than sending a body of the wrong length.
    ///
    /// - Throws: ``FaradayError/Code/encodingFailed`` for an invalid boundary or an unreadable file.
    public func encoded() throws(FaradayError) -> RequestBody {
        try validateBoundary()
        var segments: [Segment] = []
        func appendBytes(_ data: Data) {
            if case .bytes(let previous) = segments.last {
                segments[segments.count - 1] = .bytes(previous + data)
            } else {
                segments.append(.bytes(data))
            }
        }
        for part in parts {
            appendBytes(Data("--\(boundary)\r\n".utf8) + part.headerBlock)
            switch part.content {
            case .bytes(let data): appendBytes(data)
            case .file(let url): segments.append(.file(url, length: try Self.fileLength(url)))
            }
            appendBytes(Data("\r\n".utf8))
        }
        appendBytes(Data("--\(boundary)--\r\n".utf8))
        let length = segments.reduce(0) { $0 + $1.length }
        let body = segments
        return .stream(length: length) { MultipartChunks(segments: body) }
    }

    private func validateBoundary() throws(FaradayError) {
        let allowed = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=? ")
        guard (1...70).contains(boundary.count), boundary.allSatisfy(allowed.contains), boundary.last != " " else {
            throw FaradayError(
                .encodingFailed,
                "The multipart boundary \"\(boundary)\" is not valid: RFC 2046 allows 1 to 70 letters, digits and '()+_,-./:=? (no trailing space)."
            )
        }
    }

    private static func fileLength(_ url: URL) throws(FaradayError) -> Int {
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        guard let attributes, attributes[.type] as? FileAttributeType == .typeRegular,
            let size = (attributes[.size] as? NSNumber)?.intValue,
            FileManager.default.isReadableFile(atPath: url.path)
        else {
            throw FaradayError(.encodingFailed, "The multipart file \(url.path) does not exist or is not a readable regular file.")
        }
        return size
    }
}

extension MultipartForm.Part {
    /// `Content-Disposition`, `Content-Type` and the part's own headers (which replace generated
    /// ones of the same name), then the blank line.
    var headerBlock: Data {
        var disposition = "form-data; name=\"\(Self.escaped(name))\""
        if let filename { disposition += "; filename=\"\(Self.escaped(filename))\"" }
        var fields = HTTPFields()
        fields[.contentDisposition] = disposition
        if let contentType { fields[.contentType] = contentType }
        fields = fields.merging(headers)
        var block = ""
        for field in fields { block += "\(field.name): \(field.value)\r\n" }
        return Data((block + "\r\n").utf8)
    }

    /// Quotes, CR and LF percent-encoded as browsers do (WHATWG multipart/form-data), so a
    /// hostile name cannot end the header or add one.
    static func escaped(_ value: String) -> String {
        value.replacingOccurrences(of: "\"", with: "%22")
            .replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }
}

/// A piece of an encoded form: bytes in memory, or a file of known length.
enum Segment: Sendable {
    case bytes(Data)
    case file(URL, length: Int)

    var length: Int {
        switch self {
        case .bytes(let data): data.count
        case .file(_, let length): length
        }
    }
}

/// The chunks of an encoded form: each in-memory segment whole, each file in 256 KiB reads.
struct MultipartChunks: AsyncSequence, Sendable {
    typealias Element = Data
    static let readSize = 256 * 1024

    let segments: [Segment]

    struct AsyncIterator: AsyncIteratorProtocol {
        var segments: ArraySlice<Segment>
        var file: (handle: FileHandle, url: URL, remaining: Int)?

        mutating func next() async throws -> Data? {
            while true {
                if let open = file {
                    if let chunk = try read(open) { return chunk }
                    continue
                }
                guard let segment = segments.popFirst() else { return nil }
                switch segment {
                case .bytes(let data): return data
                case .file(let url, let length):
                    guard let handle = try? FileHandle(forReadingFrom: url) else {
                        throw FaradayError(.encodingFailed, "The multipart file \(url.path) could not be opened.")
                    }
                    file = (handle, url, length)
                }
            }
        }

        /// The next chunk of the open file, or `nil` when it ended at exactly its expected length.
        private mutating func read(_ open: (handle: FileHandle, url: URL, remaining: Int)) throws -> Data? {
            let chunk = try open.handle.read(upToCount: MultipartChunks.readSize) ?? Data()
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
            FaradayError(.encodingFailed, "The multipart file \(url.path) changed size while it was being sent.")
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(segments: segments[...]) }
}
