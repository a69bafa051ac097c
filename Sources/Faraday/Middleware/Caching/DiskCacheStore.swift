import HTTPTypes

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

/// A ``CacheStore`` in a directory, bounded by bytes on disk: the least recently used entries go
/// first. Several connections and processes may share one directory, and a body is written to
/// disk as it streams and served from its file in pieces, so memory stays small whatever its
/// size.
///
/// The store keeps everything under `<directory>/faraday-http-cache-2/`: one file per variant,
/// `<hash of the key>/<hash of the variant>.entry`, written in `tmp/` and renamed into place,
/// so that a reader sees a whole entry or none. A file there that cannot be read as an entry of
/// this format (truncated, corrupt, foreign, another key under a colliding hash) is removed and
/// treated as absent. Nothing outside that folder is read or removed. The heads read are kept in
/// memory while their files stay as they were (a `stat` of the folder and of each file tells), so
/// a hit reads only the body.
///
/// On a host shared with other users, the store trusts no file that another user could have put
/// there: give it a folder of the user's own (their caches folder, never a shared one such as
/// `/tmp`). Its folder is made with mode 0700 and refused, as is the directory given, unless it
/// belongs to the user the process runs as and nobody else may write in it (``init(directory:capacity:)``
/// throws); an entry file that is a link or another user's is removed, never read. The
/// credentials that the keys and the `Vary` values of entries depend on are stored as a digest
/// under a random key kept in the folder (`key`, mode 0600), never as they were sent; entries of
/// the format before (`faraday-http-cache-1`, which held them) are not read.
///
/// Writes, removals and trimming run on a queue shared by the stores of the directory in this
/// process, in the order they were asked for, so that a call does not wait for the disk to write
/// (a call on an adapter's event loop would hold up every connection of that loop). A read waits
/// for the work queued before it, so the store answers what it was told to store; a body that
/// arrives faster than the disk takes it is held back past 8 MiB queued rather than kept in
/// memory (its call waits for the disk, suspended: an event loop it runs on goes on); and the
/// queued work is finished when the process exits. Another process sees an entry once it is
/// written: ``flush()`` waits for that.
///
/// What ``HTTPCache`` queues is bounded by 8 MiB, plus a chunk for each streamed body being
/// stored and, for each buffered one, its copy (at most ``HTTPCache/Handler/maximumBodySize``).
/// ``store(_:for:)`` and a writer's ``CacheEntryWriter/append(_:)`` queue and return at once:
/// code that calls them itself is not held back. Reads are blocking calls: ``HTTPCache`` makes
/// them off an adapter's event loop.
public final class DiskCacheStore: CacheStore {
    /// The directory given; the store's files are in its `faraday-http-cache-2` folder.
    public let directory: URL
    /// The most bytes of entry files the store keeps.
    public let capacity: Int
    let root: URL
    /// The secret under which ``HTTPCache`` digests credentials for this folder.
    let credentialKey: [UInt8]
    /// The queue of the store's file work.
    package let writes: DiskWrites
    /// Bytes written since the folder was last measured; it is measured again (and trimmed)
    /// when they could take it over ``capacity``.
    private let written = Locked(Int.max)
    /// The heads this store has read, by key: a hit checks them with a `stat` of the folder and
    /// of each file (any change re-reads the folder), not a listing, a read and a JSON decode.
    private let index = Locked([String: IndexedFolder]())
    /// The most keys indexed; one more empties the index.
    private static let indexCapacity = 4096

    private struct IndexedFolder {
        let signature: FileSignature
        var files: [IndexedFile]
    }

    private struct IndexedFile {
        let path: String
        /// The file's, from the descriptor its head was read through.
        let signature: FileSignature
        let entry: CacheEntry
    }

    /// The store's folder in the directory given: the version of its format.
    static let folderName = "faraday-http-cache-2"

    /// Creates a store in `directory` (made when missing, with mode 0700) that keeps at most
    /// `capacity` bytes (50 MiB by default).
    ///
    /// - Throws: ``FaradayError/Code/storageFailed`` when the directory or the store's folder
    ///   in it cannot be made or read, or is another user's, or others may write in it (but
    ///   for a sticky directory such as `/tmp`), or the folder is a link: on a host shared with
    ///   other users, they could otherwise plant the answers it serves.
    public convenience init(directory: URL, capacity: Int = 50 * 1024 * 1024) throws(FaradayError) {
        try self.init(directory: directory, capacity: capacity, writes: nil)
    }

    /// A store whose queue calls `beforeEachWrite` before each piece of file work: for tests that
    /// stand in for a slow disk.
    package convenience init(
        directory: URL,
        capacity: Int = 50 * 1024 * 1024,
        beforeEachWrite: @escaping @Sendable () -> Void
    ) throws(FaradayError) {
        try self.init(directory: directory, capacity: capacity, writes: DiskWrites(beforeEach: beforeEachWrite))
    }

    private init(directory: URL, capacity: Int, writes: DiskWrites?) throws(FaradayError) {
        self.directory = directory
        self.capacity = capacity
        let root = directory.appending(path: Self.folderName, directoryHint: .isDirectory)
        self.root = root
        try Self.checkDirectory(directory)
        try Self.checkOwnFolder(root)
        try Self.checkOwnFolder(root.appending(path: "tmp", directoryHint: .isDirectory))
        self.credentialKey = try Self.loadKey(in: root)
        self.writes = writes ?? DiskWrites.forDirectory(root.absoluteURL.resolvingSymlinksInPath().path)
    }

    private func folder(for key: String) -> URL { root.appending(path: Self.hash(key), directoryHint: .isDirectory) }

    /// Waits until the writes, removals and trims asked of the stores of this directory so far
    /// are done on disk: before another process reads the directory, or before the process ends.
    public func flush() { writes.drain() }

    public func entries(for key: String) -> [CacheEntry] {
        writes.drain()
        let folder = folder(for: key)
        guard let folderSignature = FileSignature(path: folder.path) else {
            index.withLock { $0[key] = nil }
            return []
        }
        // The heads read before, while neither the folder nor any of its files has changed.
        if let indexed = index.withLock({ $0[key] }), indexed.signature == folderSignature,
            indexed.files.allSatisfy({ FileSignature(path: $0.path) == $0.signature })
        {
            // Reading counts as a use, for eviction: a file last touched a minute ago or more is
            // read again, which touches it (another process's store sees the use on its next trim).
            let now = Date()
            let isDue = indexed.files.contains { now.timeIntervalSince($0.signature.modified) >= 60 }
            if !isDue { return indexed.files.map(\.entry) }
        }
        return readFolder(folder, key: key)
    }

    /// Reads every entry file of a key's folder (removing what is not one), and indexes them.
    private func readFolder(_ folder: URL, key: String) -> [CacheEntry] {
        guard Self.isOwnFolder(folder) else {  // a link, another user's: nothing this store wrote
            try? FileManager.default.removeItem(at: folder)
            return []
        }
        // Taken before the listing: a file renamed in meanwhile makes the next hit read again.
        let folderSignature = FileSignature(path: folder.path)
        guard let files = try? FileManager.default.entries(of: folder)
        else { return [] }
        var indexed: [IndexedFile] = []
        var isWhole = folderSignature != nil
        let now = Date()
        for file in files {
            guard file.pathExtension == Self.fileExtension else {
                try? FileManager.default.removeItem(at: file)  // foreign: nothing else is written here
                isWhole = false
                continue
            }
            switch Self.read(file, key: key, now: now) {
            case .entry(let entry, let signature):
                indexed.append(IndexedFile(path: file.path, signature: signature, entry: entry))
            case .invalid:
                try? FileManager.default.removeItem(at: file)
                isWhole = false
            case .unreadable: isWhole = false  // removed meanwhile, or no descriptor left: not its fault
            }
        }
        indexed.sort { $0.entry.responseDate > $1.entry.responseDate }
        if isWhole, let folderSignature {
            index.withLock { index in
                if index.count >= Self.indexCapacity { index.removeAll(keepingCapacity: true) }
                index[key] = IndexedFolder(signature: folderSignature, files: indexed)
            }
        }
        return indexed.map(\.entry)
    }

    public func store(_ entry: CacheEntry, for key: String) {
        let writer = DiskEntryWriter(store: self, key: key)
        writes.enqueue(bytes: entry.body.isInMemory ? entry.body.length ?? 0 : 0) {
            guard let body = entry.body.bytes() else { return }  // a stored file read on the queue too
            writer.write(body)
            writer.finish(entry)
        }
    }

    public func makeWriter(for key: String) -> any CacheEntryWriter {
        DiskEntryWriter(store: self, key: key)
    }

    public func removeEntries(for key: String) {
        writes.enqueue { [self] in
            try? FileManager.default.removeItem(at: folder(for: key))
            index.withLock { $0[key] = nil }
        }
    }

    public func removeAll() {
        writes.enqueue { [self] in
            let contents =
                (try? FileManager.default.entries(of: root)) ?? []
            for item in contents where item.lastPathComponent != "tmp" && item.lastPathComponent != Self.keyFileName {
                try? FileManager.default.removeItem(at: item)
            }
            written.withLock { $0 = 0 }
            index.withLock { $0.removeAll() }
        }
    }

    /// Makes the store's folders when they were removed (the owner's only, and checked as when
    /// the store was made) and returns a new temporary file's URL.
    func temporaryFile() throws -> URL {
        let tmp = root.appending(path: "tmp", directoryHint: .isDirectory)
        try Self.checkOwnFolder(root)
        try Self.checkOwnFolder(tmp)
        let file = tmp.appending(path: UUID().uuidString)
        try PrivateFile.create(file).close()
        return file
    }

    /// Moves a written entry into place (replacing the variant's previous file atomically); on
    /// the store's queue.
    func install(_ file: URL, key: String, variant: [String: String?], size: Int) {
        let folder = folder(for: key)
        let destination = folder.appending(path: Self.hash(Self.describe(variant)) + "." + Self.fileExtension)
        do {
            try Self.checkOwnFolder(folder)
        } catch {
            try? FileManager.default.removeItem(at: file)
            return
        }
        guard rename(file.path, destination.path) == 0 else {
            try? FileManager.default.removeItem(at: file)
            return
        }
        index.withLock { $0[key] = nil }
        let needsTrim = written.withLock { written in
            written = written == Int.max ? Int.max : written + size
            return written > capacity
        }
        if needsTrim { trim() }
    }

    /// Removes the least recently used entries until the store fits in three quarters of its
    /// capacity (room for the next writes before measuring again), and temporary files that a
    /// process which stopped mid-write left more than an hour ago.
    private func trim() {
        var files: [(url: URL, size: Int, used: Date)] = []
        let folders = (try? FileManager.default.entries(of: root)) ?? []
        for folder in folders {
            for file in (try? FileManager.default.entries(of: folder)) ?? [] {
                let status = FileSignature(itemAt: file.path)
                let used = status?.modified ?? .distantPast
                if folder.lastPathComponent == "tmp" {
                    if used < Date() - 3600 { try? FileManager.default.removeItem(at: file) }
                } else {
                    files.append((file, Int(status?.size ?? 0), used))
                }
            }
        }
        var total = files.reduce(0) { $0 + $1.size }
        if total > capacity {
            for file in files.sorted(by: { $0.used < $1.used }) where total > capacity * 3 / 4 {
                try? FileManager.default.removeItem(at: file.url)
                total -= file.size
            }
        }
        written.withLock { $0 = total }
        index.withLock { $0.removeAll() }
    }
}
