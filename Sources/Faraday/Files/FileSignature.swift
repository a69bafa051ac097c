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

/// What one `stat` says of a file or folder: what tells that it changed (its device and inode, since
/// a file replaced by a rename has another; size; modification and change times to the nanosecond,
/// since a change time moves with any write, rename or touch), and whether it is a regular file.
/// Where FileManager's `attributesOfItem` would do, this is one system call: that also looks up the
/// owner's and the group's names, which a cache trim over thousands of files does not need.
struct FileSignature: Equatable, Sendable {
    /// A regular file (not a folder, a symbolic link or a device).
    let isRegularFile: Bool
    let device: UInt64
    let inode: UInt64
    let size: Int64
    let modification: Timestamp
    let change: Timestamp

    struct Timestamp: Equatable, Sendable {
        let seconds: Int
        let nanoseconds: Int
    }

    /// The modification time, as a date.
    var modified: Date {
        Date(timeIntervalSince1970: Double(modification.seconds) + Double(modification.nanoseconds) / 1e9)
    }

    /// The signature of what `path` names, a symbolic link followed.
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(info)
    }

    /// The signature of the item at `path` itself: a symbolic link is not followed (as
    /// `attributesOfItem` does not).
    init?(itemAt path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        self.init(info)
    }

    init?(descriptor: Int32) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        self.init(info)
    }

    private init(_ info: stat) {
        isRegularFile = (info.st_mode & S_IFMT) == S_IFREG
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        #if canImport(Darwin)
        modification = Timestamp(seconds: Int(info.st_mtimespec.tv_sec), nanoseconds: Int(info.st_mtimespec.tv_nsec))
        change = Timestamp(seconds: Int(info.st_ctimespec.tv_sec), nanoseconds: Int(info.st_ctimespec.tv_nsec))
        #else
        modification = Timestamp(seconds: Int(info.st_mtim.tv_sec), nanoseconds: Int(info.st_mtim.tv_nsec))
        change = Timestamp(seconds: Int(info.st_ctim.tv_sec), nanoseconds: Int(info.st_ctim.tv_nsec))
        #endif
    }
}
