import Foundation

/// The paths last resolved under one base URL, remembered: a client calls the same endpoints
/// again and again, and making their `URL` (Foundation's RFC 3986 parse, about 1 µs and three
/// allocations) is most of what resolving a path costs. Each ``BaseURL`` has its own, so a new base
/// URL starts with none.
struct ResolvedPaths: Sendable {
    /// How many paths are remembered; when one more comes, all are forgotten (an API with an id in
    /// every path would turn any order of eviction over all the same).
    static let capacity = 64

    /// A path resolved under the base.
    struct Resolved: Sendable {
        let url: URL
        /// The path's query, percent-encoded, without `?`.
        let query: String?
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

    private let entries = Locked([Key: Resolved]())

    /// The path resolved before, if it is remembered.
    func resolved(_ path: String, _ resolution: PathResolution) -> Resolved? {
        let key = Key(path, resolution)
        return entries.withLock { $0[key] }
    }

    /// Remembers a path resolved under the base.
    func remember(_ resolved: Resolved, for path: String, _ resolution: PathResolution) {
        let key = Key(path, resolution)
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = resolved
        }
    }
}
