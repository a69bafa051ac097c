import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a request's own conditions and range ask of a stored response (RFC 9110 §13, §14).
extension CachePolicy {
    /// The one byte range a request asks for (`Range: bytes=0-1`, `bytes=5-`, `bytes=-5`; RFC 9110
    /// §14.1.2), within a body of `length` bytes; `nil` for several ranges, another unit, or a
    /// range the body cannot satisfy.
    static func byteRange(_ header: String, length: Int) -> Range<Int>? {
        let value = header.trimmingHTTPWhitespace
        guard value.lowercased().hasPrefix("bytes="), !value.contains(",") else { return nil }
        let spec = value.dropFirst(6).trimmingHTTPWhitespace
        guard let dash = spec.firstIndex(of: "-") else { return nil }
        let first = spec[..<dash].trimmingHTTPWhitespace
        let last = spec[spec.index(after: dash)...].trimmingHTTPWhitespace
        if first.isEmpty {  // the last `last` bytes
            guard let suffix = Int(asciiDigits: last), suffix > 0, length > 0 else { return nil }
            return max(0, length - suffix)..<length
        }
        guard let start = Int(asciiDigits: first), start < length else { return nil }
        if last.isEmpty { return start..<length }
        guard let end = Int(asciiDigits: last), end >= start else { return nil }
        return start..<min(end, length - 1) + 1
    }

    /// The condition of a caller's own conditional request, as a cache evaluates it against a
    /// stored response (RFC 9111 §4.3.2, RFC 9110 §13.1).
    struct Condition {
        /// `If-None-Match`'s entity tags; `nil` without the field (then `If-Modified-Since`
        /// counts).
        let entityTags: [Substring]?
        let modifiedSince: Date?

        init?(_ headers: HTTPFields) {
            let tags = headers[values: .ifNoneMatch]
            let since = headers[.ifModifiedSince]
            guard !tags.isEmpty || since != nil else { return nil }
            entityTags = tags.isEmpty ? nil : tags.flatMap(Self.members)
            modifiedSince = since.flatMap { HTTPDate.parse($0) }
        }

        /// Whether the answer is a 304: an entity tag matches the stored one by the weak
        /// comparison (`*` matches any), or, without `If-None-Match`, the stored response was not
        /// modified since the date (its `Last-Modified`, else its `Date`).
        func isNotModified(_ entry: CacheEntry) -> Bool {
            if let entityTags {
                guard let stored = entry.headers[.eTag].map(Self.opaqueTag) else { return entityTags.contains("*") }
                return entityTags.contains { $0 == "*" || Self.opaqueTag($0) == stored }
            }
            guard let modifiedSince,
                let modified = (entry.headers[.lastModified] ?? entry.headers[.date]).flatMap({ HTTPDate.parse($0) })
            else { return false }
            return modified <= modifiedSince
        }

        /// The members of an `If-None-Match` line: split at the commas outside quotes (an entity
        /// tag may hold a comma), without the whitespace around them.
        private static func members(of line: String) -> [Substring] {
            var members: [Substring] = []
            var start = line.startIndex
            var isQuoted = false
            for index in line.indices {
                if line[index] == "\"" { isQuoted.toggle() }
                if line[index] == ",", !isQuoted {
                    members.append(line[start..<index].trimmingHTTPWhitespace)
                    start = line.index(after: index)
                }
            }
            members.append(line[start...].trimmingHTTPWhitespace)
            return members.filter { !$0.isEmpty }
        }

        /// An entity tag without its weakness (`W/`) and its quotes, for the weak comparison: a
        /// server's unquoted `ETag: abc` (not valid, and seen) matches `"abc"`.
        private static func opaqueTag(_ tag: some StringProtocol) -> Substring {
            var tag = Substring(tag)
            if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
            if tag.count >= 2, tag.hasPrefix("\""), tag.hasSuffix("\"") { tag = tag.dropFirst().dropLast() }
            return tag
        }
    }
}
