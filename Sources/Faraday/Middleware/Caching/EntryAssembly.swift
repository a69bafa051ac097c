import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How the bytes of a response from the server become a stored entry (RFC 9111 §3.3, §3.4): a
/// `200` whole; a `206` as the part it holds, joined to the part of the same representation
/// already stored when the two touch; a `200` cut off halfway as the part that arrived, when a
/// strong validator lets a later request resume from it.
struct EntryAssembly: Sendable {
    /// The entry as the response's fields make it, before its body.
    private let base: CacheEntry
    /// Stored bytes that come before the response's, written first.
    let prefix: Data
    /// The byte position of the first byte written (of the prefix, or of the response).
    private let start: Int
    /// The last position the response's own bytes may reach (its `Content-Range`), for a `206`.
    private let limit: Int?
    private let completeLength: Int?
    /// The stored part the response joins: its positions and its bytes, read when the response
    /// began (the store's file for that key may be replaced while the response streams).
    private let joined: (held: Range<Int>, bytes: Data)?

    /// `nil` for a `206` whose `Content-Range` is not one byte range.
    init?(_ base: CacheEntry, joining stored: CacheEntry?) {
        self.base = base
        guard base.status == .partialContent else {
            (prefix, start, limit, joined) = (Data(), 0, nil, nil)
            completeLength = base.headers[.contentLength].flatMap { Int($0) }
            return
        }
        guard let range = ContentRange(base.headers[.contentRange]), let first = Int(exactly: range.first),
            let end = Int(exactly: range.last + 1)
        else { return nil }
        (limit, completeLength) = (end, range.completeLength.flatMap { Int(exactly: $0) })
        guard let stored, let (held, length) = stored.heldRange, length == completeLength,
            CachePolicy.sameRepresentation(stored.headers, base.headers),
            held.lowerBound <= end, first <= held.upperBound,
            let bytes = stored.body.bytes(), bytes.count == held.count
        else {
            (prefix, start, joined) = (Data(), first, nil)
            return
        }
        joined = (held, bytes)
        if held.lowerBound < first {
            (prefix, start) = (bytes.prefix(first - held.lowerBound), held.lowerBound)
        } else {
            (prefix, start) = (Data(), first)
        }
    }

    /// The entry once `written` bytes (the prefix's and the response's) are in the writer, and
    /// the stored bytes to append after them; `nil` when the response sent more than it said.
    func entry(written: Int) -> (entry: CacheEntry, suffix: Data)? {
        guard base.status == .partialContent else { return (base, Data()) }
        var end = start + written
        guard let limit, end <= limit else { return nil }
        var suffix = Data()
        // The stored bytes after the response's, when the two touch.
        if let (held, bytes) = joined, start <= held.lowerBound, held.lowerBound <= end, end < held.upperBound {
            suffix = bytes.suffix(from: bytes.startIndex + end - held.lowerBound)
            end = held.upperBound
        }
        return (made(start..<end), suffix)
    }

    /// The entry of a body cut off after `written` bytes: the part that arrived (never joined to
    /// the stored bytes after it, which the response did not reach), when it can be resumed or
    /// joined later (a `206`, or a `200` with a strong validator and a known length).
    func part(written: Int) -> CacheEntry? {
        guard written > 0 else { return nil }
        if base.status == .partialContent {
            guard let limit, start + written <= limit else { return nil }
            return made(start..<start + written)
        }
        guard base.status == .ok, let completeLength, written < completeLength,
            base.headers.strongValidator != nil
        else { return nil }
        return made(0..<written)
    }

    /// The entry of the bytes `held`: a whole `200` when they are the representation's every byte.
    private func made(_ held: Range<Int>) -> CacheEntry {
        var entry = base
        if held.lowerBound == 0, held.upperBound == completeLength {
            entry.status = .ok
            entry.headers[.contentRange] = nil
        } else {
            entry.status = .partialContent
            entry.headers[.contentRange] = ContentRange(held, of: completeLength).field
        }
        entry.headers[.contentLength] = String(held.count)
        return entry
    }
}
