import Foundation
import HTTPTypes
import Testing

@testable import Faraday

@Suite(.timeLimit(.minutes(1))) struct CacheStoreTests {
    static func entry(_ path: String, body: Int = 10, accept: String? = nil, at seconds: TimeInterval = 0) -> CacheEntry
    {
        var headers = HTTPFields()
        headers[.cacheControl] = "max-age=60"
        headers[.eTag] = "\"\(path)\""
        return CacheEntry(
            url: URL(string: "https://api.example.com\(path)")!,
            varyingRequestHeaders: accept.map { ["accept": $0] } ?? [:],
            status: .ok,
            headers: headers,
            body: ResponseBody(Data(repeating: UInt8(ascii: "x"), count: body)),
            requestDate: Date(timeIntervalSince1970: seconds),
            responseDate: Date(timeIntervalSince1970: seconds + 1)
        )
    }

    private func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appending(
            path: "faraday-cache-\(UUID().uuidString)",
            directoryHint: .isDirectory
        )
    }

    @Test func theMemoryStoreEvictsTheLeastRecentlyUsedByBytes() {
        // Each entry takes 795 bytes as the store counts them (500 of body): eight fit, not nine.
        let store = MemoryCacheStore(capacity: 6_400)
        for name in ["a", "b", "c"] { store.store(Self.entry("/\(name)", body: 500), for: name) }
        _ = store.entries(for: "a")  // a is now more recent than b
        for name in ["d", "e", "f", "g", "h", "i"] { store.store(Self.entry("/\(name)", body: 500), for: name) }
        #expect(store.size <= store.capacity)
        #expect(store.entries(for: "b").isEmpty)
        #expect(!store.entries(for: "a").isEmpty && !store.entries(for: "i").isEmpty)
        #expect(store.size == 8 * 795)
        store.store(Self.entry("/huge", body: 2_000), for: "huge")  // over an eighth: not kept
        #expect(store.entries(for: "huge").isEmpty)
    }

    @Test(arguments: [false, true])
    func bothStoresKeepOneEntryPerVariant(onDisk: Bool) throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store: any CacheStore = onDisk ? try DiskCacheStore(directory: directory) : MemoryCacheStore()
        store.store(Self.entry("/x", accept: "text/csv", at: 0), for: "x")
        store.store(Self.entry("/x", accept: "application/json", at: 10), for: "x")
        store.store(Self.entry("/x", body: 3, accept: "text/csv", at: 20), for: "x")
        let entries = store.entries(for: "x")
        #expect(entries.count == 2)
        #expect(entries.first?.varyingRequestHeaders == ["accept": "text/csv"] && entries.first?.body.length == 3)
        store.removeEntries(for: "x")
        #expect(store.entries(for: "x").isEmpty)
        store.store(Self.entry("/y"), for: "y")
        store.removeAll()
        #expect(store.entries(for: "y").isEmpty)
    }

    @Test func theDiskStoreRoundTripsEveryField() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var entry = Self.entry("/x?q=1", accept: "a, b")
        entry.headers.append(HTTPField(name: .setCookie, value: "a=1"))
        entry.headers.append(HTTPField(name: .setCookie, value: "b=2"))
        entry.status = HTTPResponse.Status(code: 203, reasonPhrase: "Non-Authoritative")
        entry.varyingRequestHeaders["authorization"] = .some(nil)
        entry.body = ResponseBody(Data((0...255).map(UInt8.init)))  // binary, newlines included
        try DiskCacheStore(directory: directory).store(entry, for: "k")
        // Another store on the same directory (another connection, another process) reads it.
        let read = try #require(try DiskCacheStore(directory: directory).entries(for: "k").first)
        #expect(read.body.bytes() == entry.body.bytes())
        #expect(read.url == entry.url && read.varyingRequestHeaders == entry.varyingRequestHeaders)
        #expect(read.status == entry.status && read.status.reasonPhrase == entry.status.reasonPhrase)
        #expect(read.headers == entry.headers)
        #expect(read.requestDate == entry.requestDate && read.responseDate == entry.responseDate)
    }

    @Test func corruptTruncatedAndForeignFilesAreRemovedAndIgnored() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try DiskCacheStore(directory: directory)
        store.store(Self.entry("/x", body: 100), for: "x")
        store.flush()
        let folder = store.root.appending(path: DiskCacheStore.hash("x"))
        let file = try #require(
            try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil).first
        )
        let whole = try Data(contentsOf: file)
        let bad: [Data] = [
            whole.dropLast(10), Data("garbage".utf8), Data(), whole + Data("more".utf8),
            Data("faraday-cache 1\n".utf8) + whole.dropFirst(16), whole.prefix(40),
        ]
        for data in bad {
            try data.write(to: file)
            try Data("foreign".utf8).write(to: folder.appending(path: "notes.txt"))
            #expect(store.entries(for: "x").isEmpty)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        }
        // A file written for another key under a colliding name is not served for this one.
        let another = try DiskCacheStore(directory: directory)
        another.store(Self.entry("/other"), for: "other")
        another.flush()
        let other = store.root.appending(path: DiskCacheStore.hash("other"))
        let otherFile = try #require(
            try FileManager.default.contentsOfDirectory(at: other, includingPropertiesForKeys: nil).first
        )
        try FileManager.default.copyItem(at: otherFile, to: file)
        #expect(store.entries(for: "x").isEmpty)
        // Nothing outside the store's folder is touched, even a name that looks like its own.
        let mine = directory.appending(path: "0123456789abcdef")
        try FileManager.default.createDirectory(at: mine, withIntermediateDirectories: true)
        store.removeAll()
        store.flush()
        #expect(FileManager.default.fileExists(atPath: mine.path))
        #expect(store.entries(for: "other").isEmpty)
    }

    /// Writes are queued, never made in the caller's thread, and appending never blocks; past
    /// 8 MiB queued, `waitForRoom()` suspends its caller until the disk has caught up (back to
    /// 8 MiB, not merely one piece written), or until its task is cancelled.
    @Test func aSlowDiskHoldsBackTheReaderOnlyPastEightMebibytesQueued() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let disk = DispatchSemaphore(value: 0)  // each signal lets one piece of work through
        let store = try DiskCacheStore(directory: directory) {
            _ = disk.wait(timeout: .now() + 60)  // a bound on a wait, not a measure
        }
        let writes = store.writes
        let writer = store.makeWriter(for: "big")
        let piece = Data(count: 1 << 20)
        for _ in 0..<8 { writer.append(piece) }
        #expect(writes.pendingBytes == 8 << 20, "8 pieces queued while the disk holds the first write")
        await writes.waitForRoom()  // at the bound, not past it: returns at once
        for _ in 0..<4 { writer.append(piece) }
        #expect(writes.pendingBytes == 12 << 20, "more queued without waiting for the disk")

        // A reader cancelled before it waits, or while it waits, goes on.
        let cancelledFirst = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            await writes.waitForRoom()
        }
        await cancelledFirst.value
        let cancelledWaiting = Task { await writes.waitForRoom() }
        try await Self.poll { writes.waitingReaders == 1 }
        cancelledWaiting.cancel()
        await cancelledWaiting.value
        #expect(writes.waitingReaders == 0)

        // A reader goes on once the disk is back within 8 MiB, not after one write.
        let waited = Task {
            await writes.waitForRoom()
            return writes.pendingBytes
        }
        try await Self.poll { writes.waitingReaders == 1 }
        disk.signal()
        try await Self.poll { writes.pendingBytes == 11 << 20 }
        #expect(writes.waitingReaders == 1, "one write took the queue to 11 MiB: the reader still waits")
        for _ in 0..<3 { disk.signal() }
        #expect(await waited.value == 8 << 20)
        for _ in 0..<9 { disk.signal() }  // the other 8 pieces and the commit
        writer.commit(Self.entry("/big"))
        #expect(store.entries(for: "big").first?.body.length == 12 << 20)
    }

    /// Polls `condition` until it holds, failing the test after 30 seconds: a bound on a wait for
    /// something that must happen, not a measure.
    private static func poll(_ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        for _ in 0..<6000 where !condition() { try await Task.sleep(for: .milliseconds(5)) }
        #expect(condition(), "the condition did not hold within 30 seconds", sourceLocation: sourceLocation)
    }

    @Test func aLargeBodyIsWrittenAsItArrivesAndReadInPieces() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try DiskCacheStore(directory: directory)
        let writer = store.makeWriter(for: "big")
        for index in 0..<64 { writer.append(Data(repeating: UInt8(index), count: 16 * 1024)) }
        #expect(store.entries(for: "big").isEmpty, "nothing is visible before the commit")
        writer.commit(Self.entry("/big"))
        let entry = try #require(store.entries(for: "big").first)
        #expect(!entry.body.isInMemory, "a disk entry's body stays in its file")
        let length = try #require(entry.body.length)
        #expect(length == 64 * 16 * 1024)
        var pieces = 0
        var total = 0
        for try await piece in entry.body.pieces(size: 64 * 1024) {
            #expect(piece.first == UInt8(total / (16 * 1024)))
            pieces += 1
            total += piece.count
        }
        #expect(pieces == 16 && total == length)
        // An abandoned writer leaves nothing behind.
        let abandoned = store.makeWriter(for: "gone")
        abandoned.append(Data(count: 10))
        abandoned.abandon()
        abandoned.commit(Self.entry("/gone"))
        #expect(store.entries(for: "gone").isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.root.appending(path: "tmp").path).isEmpty)
    }

    @Test func readersNeverSeeAWriterHalfway() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try DiskCacheStore(directory: directory)
        await withTaskGroup(of: Void.self) { group in
            for round in 0..<20 {
                group.addTask {
                    let writer = store.makeWriter(for: "x")
                    for _ in 0..<8 { writer.append(Data(repeating: UInt8(round), count: 4096)) }
                    writer.commit(Self.entry("/x"))
                }
                group.addTask {
                    for entry in (try? DiskCacheStore(directory: directory))?.entries(for: "x") ?? [] {
                        let bytes = entry.body.bytes()
                        #expect(bytes == nil || bytes.map { Set($0).count == 1 && $0.count == 8 * 4096 } == true)
                    }
                }
            }
        }
        #expect(store.entries(for: "x").count == 1)
    }

    /// A store keeps the heads it read (issue 47: a disk hit without a listing, a read and a JSON
    /// decode), and sees every change another store (another connection, another process) makes
    /// to the directory: a replaced entry, a new variant, a removed file, a file rewritten in place.
    @Test func theDiskStoresIndexFollowsWhatOthersWrite() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try DiskCacheStore(directory: directory)
        let other = try DiskCacheStore(directory: directory)
        other.store(Self.entry("/x", body: 1, accept: "a"), for: "x")
        #expect(store.entries(for: "x").map { $0.body.length } == [1])
        #expect(store.entries(for: "x").map { $0.body.length } == [1])  // from the index

        other.store(Self.entry("/x", body: 2, accept: "a"), for: "x")  // replaced by a rename
        #expect(store.entries(for: "x").map { $0.body.length } == [2])
        other.store(Self.entry("/x", body: 3, accept: "b", at: 10), for: "x")  // a new variant
        #expect(store.entries(for: "x").map { $0.body.length } == [3, 2])

        let folder = store.root.appending(path: DiskCacheStore.hash("x"))
        func file(_ accept: String) -> URL {
            folder.appending(path: DiskCacheStore.hash(DiskCacheStore.describe(["accept": accept])) + ".entry")
        }
        try FileManager.default.removeItem(at: file("b"))  // another process's trim
        #expect(store.entries(for: "x").map { $0.body.length } == [2])
        // A read counts as a use: a file last touched over a minute ago is touched again.
        let old = Date(timeIntervalSinceNow: -120)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: file("a").path)
        #expect(store.entries(for: "x").count == 1)
        let touched = try FileManager.default.attributesOfItem(atPath: file("a").path)[.modificationDate] as? Date
        #expect(touched.map { $0 > old.addingTimeInterval(60) } == true)
        try Data("garbage".utf8).write(to: file("a"))  // rewritten in place: another size and time
        #expect(store.entries(for: "x").isEmpty)
    }

    @Test func theDiskStoreStaysWithinItsCapacityDroppingTheLeastRecentlyUsed() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try DiskCacheStore(directory: directory, capacity: 64 * 1024)
        for index in 0..<40 { store.store(Self.entry("/\(index)", body: 4_000), for: "\(index)") }
        store.flush()
        let files = try FileManager.default.subpathsOfDirectory(atPath: directory.path).filter {
            $0.hasSuffix(".entry")
        }
        let size = try files.reduce(0) { total, path in
            total
                + (try FileManager.default.attributesOfItem(atPath: directory.appending(path: path).path)[.size] as? Int
                    ?? 0)
        }
        #expect(size <= 64 * 1024 && files.count >= 10)
        #expect(!store.entries(for: "39").isEmpty)
        #expect(store.entries(for: "0").isEmpty)
    }

    @Test func aDirectoryThatCannotBeMadeIsRefused() {
        #expect(throws: FaradayError.self) {
            try DiskCacheStore(directory: URL(filePath: "/proc/faraday-cache-cannot-exist"))
        }
    }
}

@Suite(.timeLimit(.minutes(1))) struct CacheControlTests {
    @Test(
        arguments: [
            ("max-age=60", "max-age", 60), ("MAX-AGE=60", "max-age", 60), ("max-age=\"60\"", "max-age", 60),
            ("no-cache, max-age=5", "max-age", 5), ("max-age=5, max-age=10", "max-age", 5),
            ("private=\"Set-Cookie, X-A\", max-age=7", "max-age", 7),
            ("max-age=99999999999", "max-age", Int(Int32.max)),
            ("max-age=-1", "max-age", nil), ("max-age=", "max-age", nil), ("max-age=1.5", "max-age", nil),
            ("  max-age=3 ", "max-age", 3), ("stale-while-revalidate=30", "stale-while-revalidate", 30),
            // No whitespace around `=` (the caching suite's freshness-max-age-space-*-equals).
            ("max-age = 3", "max-age", nil), ("max-age =3", "max-age", nil), ("max-age= 3", "max-age", nil),
            ("no-cache =\"x\", max-age=5", "max-age", 5),
            ("max-age=000000000060", "max-age", 60), ("max-age=1e3", "max-age", nil),
        ] as [(String, String, Int?)]
    )
    func directivesAreReadAsRFC9111Says(_ value: String, _ name: String, _ seconds: Int?) {
        #expect(CacheControl([.cacheControl: value]).seconds(name) == seconds)
    }

    @Test func flagsAndPragma() {
        let control = CacheControl([.cacheControl: "No-Store, must-revalidate, private=\"a,b\", public"])
        #expect(control.noStore && control.mustRevalidate && control.isPublic && control.has("private"))
        #expect(CacheControl([HTTPField.Name("Pragma")!: "no-cache"], isRequest: true).noCache)
        // A malformed restriction still restricts; a malformed max-age makes the response stale.
        #expect(CacheControl([.cacheControl: "no-cache =\"Set-Cookie\""]).noCache)
        #expect(CacheControl([.cacheControl: "private =\"x\""]).has("private"))
        #expect(CacheControl([.cacheControl: "max-age =60"]).hasInvalidMaxAge)
        #expect(!CacheControl([HTTPField.Name("Pragma")!: "no-cache"]).noCache)
        #expect(CacheControl([.cacheControl: "max-stale"]).maxStale == Int.max)
        #expect(CacheControl([.cacheControl: "max-stale=5"]).maxStale == 5)
    }
}
