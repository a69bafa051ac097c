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

// What the store trusts on a host shared with other users (issue 66): its folder, made with
// mode 0700 and refused unless it is a folder (not a link) of the user the process runs as that
// nobody else may write; the directory it is in, which nobody else may change either (or they
// could swap the folder); and only the entry files of that user that are plain files.
extension DiskCacheStore {
    /// Makes `directory` and its missing parents (mode 0700), and refuses it unless it is a
    /// folder of this user or of root that nobody else may write in, but for a sticky one (as
    /// `/tmp`), where nobody else may rename what this user made. A link to such a folder is
    /// followed (a user's caches folder may be one).
    static func checkDirectory(_ directory: URL) throws(FaradayError) {
        var missing: [String] = []
        var path = directory.standardizedFileURL.path
        var info = stat()
        while stat(path, &info) != 0, errno == ENOENT, path != "/", !path.isEmpty {
            missing.append(path)
            // The parent: the path up to its last `/` (`/` for a top-level folder).
            path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
            if path.isEmpty { path = "/" }
        }
        for folder in missing.reversed() where mkdir(folder, 0o700) != 0 && errno != EEXIST {
            throw FaradayError(.storageFailed, "DiskCacheStore could not create \(folder): \(Self.reason()).")
        }
        guard stat(directory.path, &info) == 0 else {
            throw FaradayError(.storageFailed, "DiskCacheStore cannot use \(directory.path): \(Self.reason()).")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw FaradayError(.storageFailed, "DiskCacheStore cannot use \(directory.path): it is not a folder.")
        }
        guard info.st_uid == geteuid() || info.st_uid == 0 else {
            throw Self.refusal(
                directory.path,
                "it belongs to user \(info.st_uid), not to this process's (\(geteuid()))"
            )
        }
        guard info.st_mode & 0o022 == 0 || info.st_mode & S_ISVTX != 0 else {
            throw Self.refusal(
                directory.path,
                "others may write in it (mode \(String(info.st_mode & 0o7777, radix: 8)))"
            )
        }
    }

    /// Makes `folder` (mode 0700) when missing, and refuses it unless it is a folder, not a link,
    /// of this user that nobody else may write in; one that others may read becomes its owner's
    /// only.
    static func checkOwnFolder(_ folder: URL) throws(FaradayError) {
        let path = folder.path
        if mkdir(path, 0o700) != 0, errno != EEXIST {
            throw FaradayError(.storageFailed, "DiskCacheStore could not create \(path): \(Self.reason()).")
        }
        var info = stat()
        guard lstat(path, &info) == 0 else {
            throw FaradayError(.storageFailed, "DiskCacheStore cannot use \(path): \(Self.reason()).")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw Self.refusal(path, "it is not a folder (a link, say)")
        }
        guard info.st_uid == geteuid() else {
            throw Self.refusal(path, "it belongs to user \(info.st_uid), not to this process's (\(geteuid()))")
        }
        guard info.st_mode & 0o022 == 0 else {
            throw Self.refusal(path, "others may write in it (mode \(String(info.st_mode & 0o7777, radix: 8)))")
        }
        if info.st_mode & 0o077 != 0 { _ = chmod(path, 0o700) }
    }

    /// Whether `folder` is a folder, not a link, of this user.
    static func isOwnFolder(_ folder: URL) -> Bool {
        var info = stat()
        return lstat(folder.path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR && info.st_uid == geteuid()
    }

    /// What an entry file is, opened without following a link.
    enum OpenedFile {
        /// A plain file of this user, open for reading.
        case own(OpenFile)
        /// A link, another user's file, a folder: never read, and removed.
        case foreign
        /// Not there.
        case missing
        /// Not readable now (no descriptor left, say): not its fault.
        case unreadable
    }

    /// Opens `file` for reading when it is a plain file of this user.
    static func openOwnFile(_ file: URL) -> OpenedFile {
        let descriptor = open(file.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            switch errno {
            case ELOOP: return .foreign
            case ENOENT, ENOTDIR: return .missing
            default: return .unreadable
            }
        }
        let handle = OpenFile(descriptor: descriptor, path: file.path)
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return .unreadable }
        guard info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid() else {
            try? handle.close()
            return .foreign
        }
        return .own(handle)
    }

    private static func refusal(_ path: String, _ reason: String) -> FaradayError {
        FaradayError(
            .storageFailed,
            "DiskCacheStore refuses \(path): \(reason). Give it a folder of this user's own, such as a folder in the user's caches folder."
        )
    }

    private static func reason() -> String { String(cString: strerror(errno)) }
}
