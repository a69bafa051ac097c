#if URLSession
import Foundation

/// Body parts in arrival order. Taking the first is O(1): an array's `removeFirst` moves every
/// part behind it, which is quadratic when a fast transfer runs ahead of its consumer.
struct PartQueue {
    private var parts: [Data] = []
    private var head = 0
    /// The bytes queued.
    private(set) var bytes = 0

    mutating func append(_ part: Data) {
        parts.append(part)
        bytes += part.count
    }

    mutating func popFirst() -> Data? {
        guard head < parts.count else { return nil }
        let part = parts[head]
        parts[head] = Data()
        head += 1
        bytes -= part.count
        if head == parts.count {
            parts.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64 && head * 2 >= parts.count {
            parts.removeFirst(head)
            head = 0
        }
        return part
    }
}
#endif
