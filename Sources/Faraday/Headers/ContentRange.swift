import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A `Content-Range: bytes first-last/complete` field of one byte range (RFC 9110 §14.4), the
/// complete length `nil` for `*`: what a resumed download and the cache's stored parts hold.
struct ContentRange: Equatable {
    let first: Int64
    let last: Int64
    let completeLength: Int64?

    /// `nil` for another unit, several ranges, `bytes */N` or positions out of order.
    init?(_ field: String?) {
        guard let field, field.hasPrefix("bytes ") else { return nil }
        let parts = field.dropFirst(6).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let bounds = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Int64(asciiDigits: bounds[0]), let last = Int64(asciiDigits: bounds[1]),
            first <= last
        else { return nil }
        self.first = first
        self.last = last
        if parts[1] == "*" {
            completeLength = nil
        } else {
            guard let complete = Int64(asciiDigits: parts[1]), complete > last else { return nil }
            completeLength = complete
        }
    }

    /// The range of the bytes `held` (not empty) of a representation of `completeLength` bytes.
    init(_ held: Range<Int>, of completeLength: Int?) {
        first = Int64(held.lowerBound)
        last = Int64(held.upperBound - 1)
        self.completeLength = completeLength.map(Int64.init)
    }

    /// The field's value.
    var field: String { "bytes \(first)-\(last)/\(completeLength.map(String.init) ?? "*")" }
}

extension HTTPFields {
    /// The validator a later `If-Range` may carry for this response, and under which its bytes may
    /// be joined with another's (RFC 9110 §13.1.5, §8.8): a strong `ETag`, else a `Last-Modified`
    /// at least a second before the response's `Date` (§8.8.2.2); `nil` with neither.
    var strongValidator: String? {
        if let etag = self[.eTag] { return etag.hasPrefix("W/") ? nil : etag }
        guard let lastModified = self[.lastModified], let modified = HTTPDate.parse(lastModified),
            let date = self[.date].flatMap({ HTTPDate.parse($0) }), date.timeIntervalSince(modified) >= 1
        else { return nil }
        return lastModified
    }
}
