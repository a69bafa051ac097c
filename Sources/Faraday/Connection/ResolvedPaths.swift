import Foundation

/// Paths resolved under one base URL, remembered: a client calls the same endpoints again and
/// again, and making their `URL` (Foundation's RFC 3986 parse, about 1 µs and three allocations) is
/// most of what resolving a path costs. Each ``BaseURL`` has its own, so a new base URL starts with
/// none.
///
/// Only short paths without a query are remembered: a query changes from call to call (a page, a
/// search) and may carry a credential (`?api_key=…`), which a memory that lives as long as the
/// connection should not keep.
struct ResolvedPaths: Sendable {
    /// How many paths are remembered; when one more comes, all are forgotten (an API with an id in
    /// every path would turn any order of eviction over all the same).
    static let capacity = 64
    /// The longest path remembered, in UTF-8 bytes.
    static let longestPath = 256

    /// Whether `path` may be remembered: short, without a query, and ASCII, for which `String`'s
    /// `==` and hash are those of the bytes (for others `==` would take a decomposed `é` for a
    /// precomposed one, whose escapes differ).
    static func remembers(_ path: String) -> Bool {
        path.utf8.count <= longestPath && path.utf8.allSatisfy { $0 < 0x80 && $0 != UInt8(ascii: "?") }
    }

    /// The remembered URLs, by path, for each way of resolving one.
    private struct Entries {
        var underBasePath: [String: URL] = [:]
        var hostAbsolute: [String: URL] = [:]
    }

    private let entries = Locked(Entries())

    /// The URL `path` resolved to before, if it is remembered.
    func url(for path: String, _ resolution: PathResolution) -> URL? {
        guard Self.remembers(path) else { return nil }
        return entries.withLock { resolution.isHostAbsolute ? $0.hostAbsolute[path] : $0.underBasePath[path] }
    }

    /// Remembers the URL of a path resolved under the base, unless ``remembers(_:)`` says no.
    func remember(_ url: URL, for path: String, _ resolution: PathResolution) {
        guard Self.remembers(path) else { return }
        entries.withLock { entries in
            if resolution.isHostAbsolute {
                Self.insert(url, for: path, into: &entries.hostAbsolute)
            } else {
                Self.insert(url, for: path, into: &entries.underBasePath)
            }
        }
    }

    private static func insert(_ url: URL, for path: String, into entries: inout [String: URL]) {
        guard entries[path] == nil else { return }  // resolved by another call meanwhile
        if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
        entries[path] = url
    }
}
