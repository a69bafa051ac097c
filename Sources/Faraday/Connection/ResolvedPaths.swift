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

    /// Whether `path` may be remembered.
    static func remembers(_ path: String) -> Bool {
        path.utf8.count <= longestPath && !path.utf8.contains(UInt8(ascii: "?"))
    }

    /// A path as the resolver reads it: its bytes (`String ==` would take a decomposed `é` for a
    /// precomposed one, whose escapes differ) and how it resolves.
    private struct Key: Hashable, Sendable {
        let path: String
        let isHostAbsolute: Bool

        init(_ path: String, _ resolution: PathResolution) {
            var path = path
            path.makeContiguousUTF8()
            self.path = path
            isHostAbsolute = resolution.isHostAbsolute
        }

        static func == (lhs: Key, rhs: Key) -> Bool {
            lhs.isHostAbsolute == rhs.isHostAbsolute && lhs.path.hasSameUTF8(as: rhs.path)
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(isHostAbsolute)
            // Contiguous since `init`: hashed as one run of bytes.
            var path = path
            path.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }
    }

    private let entries = Locked([Key: URL]())

    /// The URL `path` resolved to before, if it is remembered.
    func url(for path: String, _ resolution: PathResolution) -> URL? {
        guard Self.remembers(path) else { return nil }
        let key = Key(path, resolution)
        return entries.withLock { $0[key] }
    }

    /// Remembers the URL of a path resolved under the base, unless ``remembers(_:)`` says no.
    func remember(_ url: URL, for path: String, _ resolution: PathResolution) {
        guard Self.remembers(path) else { return }
        let key = Key(path, resolution)
        entries.withLock { entries in
            guard entries[key] == nil else { return }  // resolved by another call meanwhile
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = url
        }
    }
}
