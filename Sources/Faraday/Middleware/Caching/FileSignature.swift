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

/// What tells that a file or folder changed, for one `stat`: its device and inode (a file
/// replaced by a rename has another), size, and its modification and change times to the
/// nanosecond (a change time moves with any write, rename or touch).
struct FileSignature: Equatable, Sendable {
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

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(info)
    }

    init?(descriptor: Int32) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        self.init(info)
    }

    private init(_ info: stat) {
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
