import Foundation
import HTTPTypes

/// A ``CacheStore`` in a directory, bounded by bytes on disk: the least recently used entries go
/// first. Several connections and processes may share one directory, and a body is written to
/// disk as it streams and served from its file in pieces, so memory stays small whatever its
/// size.
///
/// The store keeps everything under `<directory>/faraday-http-cache-1/`: one file per variant,
/// `<hash of the URL>/<hash of the variant>.entry`, written in `tmp/` and renamed into place,
/// so that a reader sees a whole entry or none. A file there that cannot be read as an entry of
/// this format (truncated, corrupt, foreign, another key under a colliding hash) is removed and
/// treated as absent. Nothing outside that folder is read or removed. The folder is readable by
/// its owner only. The heads read are kept in memory while their files stay as they were (a
/// `stat` of the folder and of each file tells), so a hit reads only the body.
///
/// Writes, removals and trimming run on a queue shared by the stores of the directory in this
/// process, in the order they were asked for, so that a call does not wait for the disk to write
/// (a call on an adapter's event loop would hold up every connection of that loop). A read waits
/// for the work queued before it, so the store answers what it was told to store; a body that
/// arrives faster than the disk takes it is held back past 8 MiB queued rather than kept in
/// memory (the writer waits, on its event loop if it runs on one); and the queued work is
/// finished when the process exits. Another process sees an entry once it is written:
/// ``flush()`` waits for that. Reads are blocking calls: ``HTTPCache`` makes them off an
/// adapter's event loop.
public final class DiskCacheStore: CacheStore {
    /// The directory given; the store's files are in its `faraday-http-cache-1` folder.
    public let directory: URL
    /// The most bytes of entry files the store keeps.
    public let capacity: Int
    let root: URL
    /// The queue of the store's file work.
    let writes: DiskWrites
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

    static let fileExtension = "entry"
    private static let magic = Data("faraday-cache 1\n".utf8)
    /// The magic line, then the body's length as 16 hex digits and a newline.
    static let bodyOffset = 16 + 17

    /// Creates a store in `directory` (made when missing) that keeps at most `capacity` bytes
    /// (50 MiB by default).
    public init(directory: URL, capacity: Int = 50 * 1024 * 1024) {
        self.directory = directory
        self.capacity = capacity
        self.root = directory.appending(path: "faraday-http-cache-1", directoryHint: .isDirectory)
        self.writes = DiskWrites.forDirectory(root.absoluteURL.resolvingSymlinksInPath().path)
    }

    /// A store whose queue calls `beforeEachWrite` before each piece of file work: for tests that
    /// stand in for a slow disk.
    package init(directory: URL, capacity: Int = 50 * 1024 * 1024, beforeEachWrite: @escaping @Sendable () -> Void) {
        self.directory = directory
        self.capacity = capacity
        self.root = directory.appending(path: "faraday-http-cache-1", directoryHint: .isDirectory)
        self.writes = DiskWrites(beforeEach: beforeEachWrite)
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
        // Taken before the listing: a file renamed in meanwhile makes the next hit read again.
        let folderSignature = FileSignature(path: folder.path)
        guard let files = try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
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
                (try? FileManager.default.contentsOfDirectory(at: root, includingPropertiesForKeys: nil)) ?? []
            for item in contents where item.lastPathComponent != "tmp" { try? FileManager.default.removeItem(at: item) }
            written.withLock { $0 = 0 }
            index.withLock { $0.removeAll() }
        }
    }

    /// Makes the store's folders (owner only) and returns a new temporary file's URL.
    func temporaryFile() throws -> URL {
        let tmp = root.appending(path: "tmp", directoryHint: .isDirectory)
        try PrivateFile.createFolder(tmp)
        try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: root.path)
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
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
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
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        var files: [(url: URL, size: Int, used: Date)] = []
        let folders = (try? FileManager.default.contentsOfDirectory(at: root, includingPropertiesForKeys: nil)) ?? []
        for folder in folders {
            let contents = try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: keys)
            for file in contents ?? [] {
                let values = try? file.resourceValues(forKeys: Set(keys))
                let used = values?.contentModificationDate ?? .distantPast
                if folder.lastPathComponent == "tmp" {
                    if used < Date() - 3600 { try? FileManager.default.removeItem(at: file) }
                } else {
                    files.append((file, values?.fileSize ?? 0, used))
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

    // MARK: The file format: magic line, body length, body, then the head as JSON

    /// What a file holds after the body, as JSON.
    struct Head: Codable {
        var key: String
        var url: String
        var varying: [[String?]]
        var status: Int
        var reason: String
        var headers: [[String]]
        var requestDate: Double
        var responseDate: Double
    }

    static func header(bodyLength: Int) -> Data {
        let digits = String(bodyLength, radix: 16)
        return magic + Data((String(repeating: "0", count: 16 - digits.utf8.count) + digits + "\n").utf8)
    }

    static func head(of entry: CacheEntry, key: String) -> Data? {
        try? JSONEncoder().encode(
            Head(
                key: key,
                url: entry.url.absoluteString,
                varying: entry.varyingRequestHeaders.sorted { $0.key < $1.key }.map { [$0.key, $0.value] },
                status: entry.status.code,
                reason: entry.status.reasonPhrase,
                headers: entry.headers.map { [$0.name.rawName, $0.value] },
                requestDate: entry.requestDate.timeIntervalSince1970,
                responseDate: entry.responseDate.timeIntervalSince1970
            )
        )
    }

    enum ReadResult {
        /// The entry, and the file's signature through the descriptor it was read by (after the
        /// touch), so that a file renamed into place meanwhile is not taken for this one.
        case entry(CacheEntry, FileSignature)
        case invalid
        case unreadable
    }

    /// Reads a file's head (the body stays in the file), and counts the read as a use: its
    /// modification time is set to `now` when it is a minute old or more.
    static func read(_ file: URL, key: String, now: Date) -> ReadResult {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return .unreadable }
        defer { try? handle.close() }
        guard var signature = FileSignature(descriptor: handle.fileDescriptor) else { return .unreadable }
        if now.timeIntervalSince(signature.modified) >= 60 {
            _ = futimens(handle.fileDescriptor, nil)
            signature = FileSignature(descriptor: handle.fileDescriptor) ?? signature
        }
        // `read` answers nil at the end of the file: an empty file is read as empty, not unreadable.
        guard let start = try? handle.read(upToCount: bodyOffset) ?? Data() else { return .unreadable }
        guard start.count == bodyOffset, start.starts(with: magic), start.last == UInt8(ascii: "\n"),
            let length = Int(String(decoding: start.dropFirst(magic.count).dropLast(), as: UTF8.self), radix: 16),
            length >= 0, (try? handle.seek(toOffset: UInt64(bodyOffset) + UInt64(length))) != nil,
            let json = try? handle.readToEnd(), let head = try? JSONDecoder().decode(Head.self, from: json),
            head.key == key, let url = URL(string: head.url), (100...999).contains(head.status)
        else { return .invalid }
        var headers = HTTPFields()
        for pair in head.headers {
            guard pair.count == 2, let name = HTTPField.Name(pair[0]) else { return .invalid }
            headers.append(HTTPField(name: name, value: pair[1]))
        }
        var varying: [String: String?] = [:]
        for pair in head.varying {
            guard pair.count == 2, let name = pair[0] else { return .invalid }
            varying[name] = pair[1]
        }
        return .entry(
            CacheEntry(
                url: url,
                varyingRequestHeaders: varying,
                status: HTTPResponse.Status(code: head.status, reasonPhrase: head.reason),
                headers: headers,
                body: ResponseBody(file: file, offset: bodyOffset, length: length),
                requestDate: Date(timeIntervalSince1970: head.requestDate),
                responseDate: Date(timeIntervalSince1970: head.responseDate)
            ),
            signature
        )
    }

    static func describe(_ varying: [String: String?]) -> String {
        varying.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value ?? "\u{0}")" }.joined(separator: "\n")
    }

    /// FNV-1a, 64 bits, as 16 hex digits: a stable file name (the key in the file settles collisions).
    static func hash(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.utf8.count) + digits
    }
}
