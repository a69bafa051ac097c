import Foundation
import HTTPTypes

/// A ``CacheStore`` in a directory, bounded by bytes on disk: the least recently used entries go
/// first. Several connections and processes may share one directory.
///
/// Each variant is one file, `<directory>/<hash of the URL>/<hash of the variant>.entry`,
/// written to a temporary file and renamed into place, so that a reader sees a whole entry or
/// none. A file that cannot be read as an entry of this format (truncated, corrupt, another
/// version, another key under a colliding hash) is removed and treated as absent. Files outside
/// that layout are left alone, so pointing the store at a directory that holds other files
/// removes none of them.
public final class DiskCacheStore: CacheStore {
    /// The directory the entries are in.
    public let directory: URL
    /// The most bytes of entry files the store keeps.
    public let capacity: Int
    /// Bytes written since the directory was last measured: it is measured again (and trimmed)
    /// when they could take it over ``capacity``.
    private let written = Locked(Int.max)

    private static let fileExtension = "entry"
    private static let magic = Data("faraday-cache 1\n".utf8)

    /// Creates a store in `directory` (made when missing) that keeps at most `capacity` bytes
    /// (50 MiB by default).
    public init(directory: URL, capacity: Int = 50 * 1024 * 1024) {
        self.directory = directory
        self.capacity = capacity
    }

    public func entries(for key: String) -> [CacheEntry] {
        let folder = directory.appending(path: Self.hash(key), directoryHint: .isDirectory)
        guard let files = try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
        else { return [] }
        var entries: [CacheEntry] = []
        for file in files {
            guard file.pathExtension == Self.fileExtension, let data = try? Data(contentsOf: file),
                let entry = Self.decode(data, key: key)
            else {
                try? FileManager.default.removeItem(at: file)  // foreign or corrupt
                continue
            }
            // Reading counts as a use, for eviction.
            try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: file.path)
            entries.append(entry)
        }
        return entries.sorted { $0.responseDate > $1.responseDate }
    }

    public func store(_ entry: CacheEntry, for key: String) {
        let folder = directory.appending(path: Self.hash(key), directoryHint: .isDirectory)
        let file = folder.appending(
            path: Self.hash(Self.describe(entry.varyingRequestHeaders)) + "." + Self.fileExtension
        )
        guard let data = Self.encode(entry, key: key), data.count <= capacity / 8 else {
            try? FileManager.default.removeItem(at: file)
            return
        }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try data.write(to: file, options: .atomic)
        } catch {
            return  // a full disk or a read-only directory: the response is simply not kept
        }
        let needsTrim = written.withLock { written in
            written = written == Int.max ? Int.max : written + data.count
            return written > capacity
        }
        if needsTrim { trim() }
    }

    public func removeEntries(for key: String) {
        try? FileManager.default.removeItem(at: directory.appending(path: Self.hash(key), directoryHint: .isDirectory))
    }

    public func removeAll() {
        for folder in Self.entryFolders(in: directory) { try? FileManager.default.removeItem(at: folder) }
        written.withLock { $0 = 0 }
    }

    /// Removes the least recently used files until the store fits in three quarters of its
    /// capacity (room for the next writes before measuring again).
    private func trim() {
        var files: [(url: URL, size: Int, used: Date)] = []
        for folder in Self.entryFolders(in: directory) {
            let contents = try? FileManager.default.contentsOfDirectory(
                at: folder,
                includingPropertiesForKeys: [.fileSizeKey, .contentModificationDateKey]
            )
            for file in contents ?? [] where file.pathExtension == Self.fileExtension {
                let values = try? file.resourceValues(forKeys: [.fileSizeKey, .contentModificationDateKey])
                files.append((file, values?.fileSize ?? 0, values?.contentModificationDate ?? .distantPast))
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
    }

    private static func entryFolders(in directory: URL) -> [URL] {
        let contents =
            (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? []
        return contents.filter { url in
            let name = url.lastPathComponent
            return name.utf8.count == 16 && name.utf8.allSatisfy { Self.hexDigits.contains($0) }
        }
    }

    // MARK: The file format

    /// What a file holds before the body, as one line of JSON.
    private struct Head: Codable {
        var key: String
        var url: String
        var varying: [[String?]]
        var status: Int
        var reason: String
        var headers: [[String]]
        var requestDate: Double
        var responseDate: Double
        var bodyLength: Int
    }

    static func encode(_ entry: CacheEntry, key: String) -> Data? {
        let head = Head(
            key: key,
            url: entry.url.absoluteString,
            varying: entry.varyingRequestHeaders.sorted { $0.key < $1.key }.map { [$0.key, $0.value] },
            status: entry.status.code,
            reason: entry.status.reasonPhrase,
            headers: entry.headers.map { [$0.name.rawName, $0.value] },
            requestDate: entry.requestDate.timeIntervalSince1970,
            responseDate: entry.responseDate.timeIntervalSince1970,
            bodyLength: entry.body.count
        )
        guard let json = try? JSONEncoder().encode(head) else { return nil }
        return magic + json + Data("\n".utf8) + entry.body
    }

    static func decode(_ data: Data, key: String) -> CacheEntry? {
        guard data.starts(with: magic) else { return nil }
        let rest = data.dropFirst(magic.count)
        guard let newline = rest.firstIndex(of: UInt8(ascii: "\n")),
            let head = try? JSONDecoder().decode(Head.self, from: rest[..<newline]),
            head.key == key, let url = URL(string: head.url), (100...999).contains(head.status)
        else { return nil }
        let body = rest[rest.index(after: newline)...]
        guard body.count == head.bodyLength else { return nil }  // truncated, or grown
        var headers = HTTPFields()
        for pair in head.headers {
            guard pair.count == 2, let name = HTTPField.Name(pair[0]) else { return nil }
            headers.append(HTTPField(name: name, value: pair[1]))
        }
        var varying: [String: String?] = [:]
        for pair in head.varying {
            guard pair.count == 2, let name = pair[0] else { return nil }
            varying[name] = pair[1]
        }
        return CacheEntry(
            url: url,
            varyingRequestHeaders: varying,
            status: HTTPResponse.Status(code: head.status, reasonPhrase: head.reason),
            headers: headers,
            body: Data(body),
            requestDate: Date(timeIntervalSince1970: head.requestDate),
            responseDate: Date(timeIntervalSince1970: head.responseDate)
        )
    }

    private static func describe(_ varying: [String: String?]) -> String {
        varying.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value ?? "\u{0}")" }.joined(separator: "\n")
    }

    private static let hexDigits = Set("0123456789abcdef".utf8)

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
