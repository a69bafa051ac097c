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

// The store's secret: 32 random bytes in `<folder>/key` (mode 0600), made once by the first store
// of the folder, under which a request's credentials are digested (`CachePartition`), so that
// entries of users who sent credentials survive a restart and nothing stored holds a credential.
extension DiskCacheStore {
    static let keyFileName = "key"

    /// The key of the store folder `root`, made when it has none. A key file that is a link,
    /// another user's, or readable by others is refused.
    static func loadKey(in root: URL) throws(FaradayError) -> [UInt8] {
        let file = root.appending(path: keyFileName)
        for _ in 0..<3 {
            if let key = try readKey(file) { return key }
            // Written whole beside it, then linked into place: a store of another process reads
            // the key of the first to link, never half of one.
            let temporary = root.appending(path: ".key-\(UUID().uuidString)")
            defer { _ = unlink(temporary.path) }
            do {
                let handle = try PrivateFile.create(temporary)
                try handle.write(contentsOf: HMACSHA256.randomKey())
                try handle.synchronize()
                try handle.close()
            } catch {
                throw FaradayError(.storageFailed, "DiskCacheStore could not write its key in \(root.path): \(error).")
            }
            if link(temporary.path, file.path) != 0, errno != EEXIST {
                throw FaradayError(
                    .storageFailed,
                    "DiskCacheStore could not write its key in \(root.path): \(String(cString: strerror(errno)))."
                )
            }
        }
        throw FaradayError(.storageFailed, "DiskCacheStore could not read its key in \(root.path).")
    }

    /// The key in `file`; `nil` when there is none, or when the file is this user's but not a
    /// key (then it is removed, to be made again).
    private static func readKey(_ file: URL) throws(FaradayError) -> [UInt8]? {
        let handle: OpenFile
        switch openOwnFile(file) {
        case .own(let opened): handle = opened
        case .foreign:
            throw FaradayError(
                .storageFailed,
                "DiskCacheStore refuses \(file.path): it is a link, or another user's file."
            )
        case .missing: return nil
        case .unreadable: throw FaradayError(.storageFailed, "DiskCacheStore cannot read \(file.path).")
        }
        defer { try? handle.close() }
        var info = stat()
        guard fstat(handle.fileDescriptor, &info) == 0, info.st_mode & 0o077 == 0 else {
            throw FaradayError(.storageFailed, "DiskCacheStore refuses \(file.path): others may read it.")
        }
        guard let key = try? handle.readToEnd(), key.count == 32 else {
            _ = unlink(file.path)
            return nil
        }
        return Array(key)
    }
}
