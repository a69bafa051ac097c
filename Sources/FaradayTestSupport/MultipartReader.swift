import Foundation

/// Reads a `multipart/form-data` body as it streams in, keeping only a summary of each part:
/// its headers, length, whether its bytes follow the server's `offset % 251` pattern, and (for
/// parts up to 1 MiB) the content itself. Memory stays bounded whatever the body's size. Public
/// for the fuzz targets.
public struct MultipartReader {
    /// What the `/multipart` route reports about one part.
    public struct PartSummary: Encodable, Sendable {
        /// The part's headers, names lower-cased.
        public internal(set) var headers: [String: String] = [:]
        /// The `name` of its `Content-Disposition`.
        public internal(set) var name: String?
        /// The `filename` of its `Content-Disposition`.
        public internal(set) var filename: String?
        /// Its length in bytes.
        public internal(set) var length = 0
        /// Whether its bytes follow the `offset % 251` pattern.
        public internal(set) var followsPattern = true
        /// The content as UTF-8 (lossy), for parts of at most ``MultipartReader/keptContent`` bytes.
        public internal(set) var content: String?
        fileprivate var kept = Data()
    }

    /// What the `/multipart` route answers.
    public struct Summary: Encodable, Sendable {
        /// The parts, in order.
        public internal(set) var parts: [PartSummary] = []
        /// `nil` when the body was a well-formed multipart body, else what was wrong.
        public internal(set) var error: String?
    }

    static let keptContent = 1 << 20

    private enum State { case preamble, headers, content, epilogue }

    private let delimiter: Data
    private var state = State.preamble
    private var pending = Data("\r\n".utf8)  // lets the first boundary match like the others
    private(set) var summary = Summary()

    /// A reader for the boundary of a request's `Content-Type`.
    public init(boundary: String) {
        delimiter = Data("\r\n--\(boundary)".utf8)
    }

    /// Reads the next bytes of the body.
    public mutating func consume(_ chunk: Data) {
        guard summary.error == nil else { return }
        pending.append(chunk)
        while step() {}
    }

    /// Ends the body; a body that stopped before its closing boundary is an error.
    public mutating func finish() -> Summary {
        if summary.error == nil && state != .epilogue { summary.error = "the body ended before the closing boundary" }
        for index in summary.parts.indices {
            let part = summary.parts[index]
            if part.length <= Self.keptContent {
                summary.parts[index].content = String(decoding: part.kept, as: UTF8.self)
            }
        }
        return summary
    }

    /// Makes progress on `pending`; `false` when it needs more bytes.
    private mutating func step() -> Bool {
        switch state {
        case .preamble, .content:
            guard let found = pending.range(of: delimiter) else {
                // Keep a tail that could be the start of a delimiter split across chunks.
                let safe = max(0, pending.count - delimiter.count)
                if state == .content && safe > 0 { appendContent(pending.prefix(safe)) }
                if safe > 0 { pending = Data(pending.dropFirst(safe)) }
                return false
            }
            let after = pending[found.upperBound...]
            guard after.count >= 2 else { return false }  // wait for what follows the boundary
            if state == .content { appendContent(pending[pending.startIndex..<found.lowerBound]) }
            if after.prefix(2) == Data("--".utf8) {
                state = .epilogue
                pending = Data()
                return false
            }
            guard after.prefix(2) == Data("\r\n".utf8) else {
                summary.error = "a boundary was not followed by CRLF or --"
                return false
            }
            pending = Data(after.dropFirst(2))
            summary.parts.append(PartSummary())
            state = .headers
            return true
        case .headers:
            guard let end = pending.range(of: Data("\r\n\r\n".utf8)) else {
                if pending.count > 16 * 1024 { summary.error = "part headers longer than 16 KiB" }
                return false
            }
            readHeaders(String(decoding: pending[pending.startIndex..<end.lowerBound], as: UTF8.self))
            pending = Data(pending[end.upperBound...])
            state = .content
            return true
        case .epilogue:
            pending = Data()
            return false
        }
    }

    private mutating func readHeaders(_ block: String) {
        let index = summary.parts.count - 1
        for line in block.components(separatedBy: "\r\n") where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else {
                summary.error = "a part header line has no colon: \(line)"
                return
            }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            summary.parts[index].headers[name] = value
            if name == "content-disposition" {
                summary.parts[index].name = Self.parameter("name", in: value)
                summary.parts[index].filename = Self.parameter("filename", in: value)
            }
        }
    }

    private mutating func appendContent(_ bytes: Data) {
        let index = summary.parts.count - 1
        var part = summary.parts[index]
        if part.followsPattern { part.followsPattern = Self.followsPattern(bytes, from: part.length) }
        part.length += bytes.count
        if part.length <= Self.keptContent { part.kept.append(bytes) } else { part.kept = Data() }
        summary.parts[index] = part
    }

    /// Whether `bytes`, starting at `offset` in their part, are `offset % 251` (compared with
    /// `memcmp` against the pattern block, so a gigabyte is checked quickly even unoptimised).
    private static func followsPattern(_ bytes: Data, from offset: Int) -> Bool {
        let block = Routes.patternBytes
        var position = 0
        var phase = offset % 251
        while position < bytes.count {
            let count = min(bytes.count - position, block.count - phase)
            let start = bytes.index(bytes.startIndex, offsetBy: position)
            let equal = bytes[start..<(start + count)].withUnsafeBytes { slice in
                block.withUnsafeBytes { pattern in
                    guard let base = slice.baseAddress, let expected = pattern.baseAddress else { return count == 0 }
                    return memcmp(base, expected + phase, count) == 0
                }
            }
            guard equal else { return false }
            position += count
            phase = (phase + count) % 251
        }
        return true
    }

    private static func parameter(_ key: String, in value: String) -> String? {
        for piece in value.split(separator: ";").dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == key else { continue }
            return pair[1].hasPrefix("\"") && pair[1].hasSuffix("\"") && pair[1].count >= 2
                ? String(pair[1].dropFirst().dropLast()) : pair[1]
        }
        return nil
    }
}
