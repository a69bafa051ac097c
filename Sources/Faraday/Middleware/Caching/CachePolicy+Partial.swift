import Foundation
import HTTPTypes

/// What a cache needs of partial content (RFC 9110 §14.4, §15.3.7; RFC 9111 §3.3, §3.4): the
/// range a `206` holds, whether two responses are one representation, and the validator that
/// makes a range request safe to combine.
extension CachePolicy {
    /// A `Content-Range` of one byte range: `bytes 0-99/1000`, or `bytes 0-99/*` when the whole
    /// length is unknown.
    struct ContentRange: Equatable {
        /// The first and last byte positions.
        let first: Int
        let last: Int
        /// The length of the whole representation, when the server knows it.
        let completeLength: Int?

        init?(_ header: String?) {
            guard let header else { return nil }
            let value = header.trimmingHTTPWhitespace
            guard value.lowercased().hasPrefix("bytes "), let slash = value.firstIndex(of: "/") else { return nil }
            let span = value[value.index(value.startIndex, offsetBy: 6)..<slash].trimmingHTTPWhitespace
            let length = value[value.index(after: slash)...].trimmingHTTPWhitespace
            let bounds = span.split(separator: "-", omittingEmptySubsequences: false)
            guard bounds.count == 2, let first = CachePolicy.position(bounds[0]),
                let last = CachePolicy.position(bounds[1]), first <= last
            else { return nil }
            let completeLength = length == "*" ? nil : CachePolicy.position(length)
            guard length == "*" || completeLength.map({ last < $0 }) == true else { return nil }
            (self.first, self.last, self.completeLength) = (first, last, completeLength)
        }

        init(_ held: Range<Int>, of completeLength: Int?) {
            (first, last, self.completeLength) = (held.lowerBound, held.upperBound - 1, completeLength)
        }

        var header: String { "bytes \(first)-\(last)/\(completeLength.map(String.init) ?? "*")" }
    }

    /// The validator a range request may carry in `If-Range` for a stored response, and under
    /// which two responses' bytes may be combined (RFC 9110 §13.1.5, §8.8.1): a strong `ETag`,
    /// else a `Last-Modified` at least a second before the response's `Date` (§8.8.2.2). `nil`
    /// when the response has neither: its bytes are never combined with others.
    static func strongValidator(_ headers: HTTPFields) -> String? {
        if let etag = headers[.eTag] { return etag.hasPrefix("W/") ? nil : etag }
        guard let lastModified = headers[.lastModified], let modified = HTTPDate.parse(lastModified),
            let date = headers[.date].flatMap({ HTTPDate.parse($0) }), date.timeIntervalSince(modified) >= 1
        else { return nil }
        return lastModified
    }

    /// Whether two responses are one representation, by the same strong validator: their bytes
    /// may then be combined (RFC 9111 §3.4).
    static func sameRepresentation(_ one: HTTPFields, _ other: HTTPFields) -> Bool {
        guard let validator = strongValidator(one) else { return false }
        return validator == strongValidator(other) && (one[.eTag] == nil) == (other[.eTag] == nil)
    }
}

extension CacheEntry {
    /// Whether the entry holds part of a representation (a stored `206`, or a `200` whose body
    /// was cut off): it answers range requests within it, and a plain request resumes from it.
    var isPartial: Bool { status == .partialContent }

    /// The byte positions a partial entry holds, and the whole length when known.
    var heldRange: (range: Range<Int>, completeLength: Int?)? {
        guard isPartial, let contentRange = CachePolicy.ContentRange(headers[.contentRange]),
            let count = body.length
        else { return nil }
        return (contentRange.first..<contentRange.first + count, contentRange.completeLength)
    }
}
