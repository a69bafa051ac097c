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

/// Files only their owner can read: a cookie jar, a spooled upload body, a cache entry. Each is
/// created with mode 0600 in one `open(O_CREAT | O_EXCL)`, so it is never readable by others for a
/// moment and never follows a link someone planted at its name (curl CVE-2022-32207); a file
/// rewritten "atomically" is a new private file renamed over the old one, so a 0600 file stays
/// 0600 (Foundation's `.atomic` write makes the new file with the process's umask, usually 0644).
enum PrivateFile {
    /// Creates `file`, which must not exist, readable and writable by its owner only, and returns
    /// a handle open for writing.
    static func create(_ file: URL) throws -> OpenFile {
        let descriptor = file.withUnsafeFileSystemRepresentation { path -> Int32 in
            guard let path else { return -1 }
            return open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        }
        guard descriptor >= 0 else {
            throw FaradayError(.storageFailed, "Could not create \(file.path): \(String(cString: strerror(errno))).")
        }
        return OpenFile(descriptor: descriptor, path: file.path)
    }

    /// Replaces `file` with `data`: a private file written beside it, then renamed over it, so a
    /// reader sees the old contents or the new, and the file is 0600 whatever it was before.
    static func write(_ data: Data, to file: URL) throws {
        let temporary = file.deletingLastPathComponent()
            .appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString).tmp")
        do {
            let handle = try create(temporary)
            defer { try? handle.close() }
            try handle.write(contentsOf: data)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
        let moved = temporary.withUnsafeFileSystemRepresentation { from in
            file.withUnsafeFileSystemRepresentation { to in
                guard let from, let to else { return false }
                return rename(from, to) == 0
            }
        }
        guard moved else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw FaradayError(.storageFailed, "Could not replace \(file.path): \(reason).")
        }
    }

    /// Creates `folder` (and its parents) and makes it reachable by its owner only (0700).
    static func createFolder(_ folder: URL) throws {
        try FileManager.default.createDirectory(
            at: folder,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder.path)
    }
}
