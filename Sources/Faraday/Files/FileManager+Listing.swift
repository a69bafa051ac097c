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
}
