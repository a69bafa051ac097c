#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What one `lstat` says of a path: its kind, size and last modification. FileManager's
/// `attributesOfItem` says the same (it does not follow a symbolic link either), and looks up the
/// owner's and the group's names as well, which a cache trim over thousands of files does not need.
struct FileStatus {
    /// A regular file (not a folder, a symbolic link or a device).
    let isRegularFile: Bool
    /// The size in bytes.
    let size: Int
    /// The last modification.
    let modified: Date

    /// The status of the item at `path` (a symbolic link itself, not what it points to), or `nil`
    /// when there is none or it cannot be read.
    init?(ofItemAt path: String) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        isRegularFile = (status.st_mode & S_IFMT) == S_IFREG
        size = Int(status.st_size)
        #if canImport(Darwin)
        let time = status.st_mtimespec
        #else
        let time = status.st_mtim
        #endif
        modified = Date(timeIntervalSince1970: Double(time.tv_sec) + Double(time.tv_nsec) / 1_000_000_000)
    }
}
