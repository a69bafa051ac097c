import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a cache needs of partial content (RFC 9110 §15.3.7; RFC 9111 §3.3, §3.4): whether two
/// responses are one representation, and the bytes a stored part holds.
extension CachePolicy {
    /// Whether two responses are one representation, by the same strong validator: their bytes
    /// may then be combined (RFC 9111 §3.4).
    static func sameRepresentation(_ one: HTTPFields, _ other: HTTPFields) -> Bool {
        guard let validator = one.strongValidator else { return false }
        return validator == other.strongValidator && (one[.eTag] == nil) == (other[.eTag] == nil)
    }
}

extension CacheEntry {
    /// Whether the entry holds part of a representation (a stored `206`, or a `200` whose body
    /// was cut off): it answers range requests within it, and a plain request resumes from it.
    var isPartial: Bool { status == .partialContent }

    /// The byte positions a partial entry holds, and the whole length when known.
    var heldRange: (range: Range<Int>, completeLength: Int?)? {
        guard isPartial, let range = ContentRange(headers[.contentRange]), let first = Int(exactly: range.first),
            let count = body.length
        else { return nil }
        return (first..<first + count, range.completeLength.flatMap { Int(exactly: $0) })
    }
}
