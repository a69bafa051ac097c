#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension FileManager {
    /// The entries of `folder`, as URLs in it (FoundationEssentials lists names only).
    func entries(of folder: URL) throws -> [URL] {
        try contentsOfDirectory(atPath: folder.path).map { folder.appendingPathComponent($0) }
    }

    /// The size in an item's attributes: a `UInt` on Linux and an `NSNumber` on Apple platforms,
    /// read as an `Int` either way.
    static func size(in attributes: [FileAttributeKey: Any]) -> Int? {
        (attributes[.size] as? UInt).map { Int($0) } ?? attributes[.size] as? Int
    }

    /// The size and last modification of the file at `url`, or `nil` when it cannot be read.
    func sizeAndModification(of url: URL) -> (size: Int, modified: Date)? {
        guard let attributes = try? attributesOfItem(atPath: url.path), let size = Self.size(in: attributes)
        else { return nil }
        return (size, attributes[.modificationDate] as? Date ?? .distantPast)
    }
}
