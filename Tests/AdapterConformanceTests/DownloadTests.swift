import Faraday
import FaradayTestSupport
import Foundation
import Testing

extension AdapterConformance {
    /// `connection.download(_:to:)` on each adapter against the in-process server's
    /// `/download/<size>` route, which serves ranges, validators and cut connections as nginx
    /// serves a static file behind a flaky network.
    @Suite(.timeLimit(.minutes(5))) struct DownloadTests {
        /// A fresh directory for one test's files.
        private final class Folder: Sendable {
            let url = FileManager.default.temporaryDirectory.appending(path: "faraday-download-\(UUID().uuidString)")
            var file: URL { url.appending(path: "file.bin") }
            var partial: URL { URL(fileURLWithPath: file.path + ".part") }
            deinit { try? FileManager.default.removeItem(at: url) }
        }

        /// `true` when `file` holds `size` bytes of the server's pattern (byte i is i % 251).
        private static func holdsPattern(_ file: URL, size: Int) throws -> Bool {
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            var offset = 0
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                for (index, byte) in chunk.enumerated() where byte != UInt8((offset + index) % 251) { return false }
                offset += chunk.count
            }
            return offset == size
        }

        private static func partialSize(_ folder: Folder) -> Int {
            ((try? FileManager.default.attributesOfItem(atPath: folder.partial.path))?[.size] as? NSNumber)?.intValue
                ?? 0
        }

        @Test(arguments: AdapterKind.allCases)
        func aFileIsWrittenWholeAndMovedIntoPlace(_ kind: AdapterKind) async throws {
            let folder = Folder()
            try await withConnection(kind) { connection, server in
                let key = UUID().uuidString
                let response = connection.download("download/1000000?key=\(key)", to: folder.file)
                let progress = Task {
                    var values: [TransferProgress] = []
                    for await value in response.downloadProgress { values.append(value) }
                    return values
                }
                let env = try await response.value
                #expect(env.status == .ok && env.body.isEmpty)
                #expect(env.downloadedFile == DownloadedFile(url: folder.file, length: 1_000_000, resumedFrom: []))
                #expect(try Self.holdsPattern(folder.file, size: 1_000_000))
                #expect(!FileManager.default.fileExists(atPath: folder.partial.path))
                #expect(!FileManager.default.fileExists(atPath: folder.partial.path + ".json"))
                #expect(server.downloadRequests(key: key) == ["whole"])
                let values = await progress.value
                #expect(zip(values, values.dropFirst()).allSatisfy { $0.completedBytes <= $1.completedBytes })
                #expect(values.last == TransferProgress(completedBytes: 1_000_000, totalBytes: 1_000_000))
            }
        }

        @Test(arguments: AdapterKind.allCases, [true, false])
        func aCutTransferResumesWithARangeInTheSameCall(_ kind: AdapterKind, _ withETag: Bool) async throws {
            let folder = Folder()
            try await withConnection(kind) { connection, server in
                let key = UUID().uuidString
                let path = "download/2000000?key=\(key)&cut=500000" + (withETag ? "" : "&etag=no")
                let seen = Locked<[TransferProgress]>([])
                let env = try await connection.download(path, to: folder.file)
                    .onDownloadProgress { value in seen.withLock { $0.append(value) } }
                    .value
                // What arrived before the cut is on disk; AsyncHTTPClient drops the parts it had
                // read ahead of the consumer when the connection fails, so it may be less.
                let resumedFrom = try #require(env.downloadedFile?.resumedFrom.first)
                #expect(resumedFrom > 0 && resumedFrom <= 500_000)
                #expect(kind.isOnNIO || resumedFrom == 500_000)
                #expect(env.status == .partialContent)
                #expect(server.downloadRequests(key: key) == ["whole", "bytes=\(resumedFrom)-"])
                #expect(try Self.holdsPattern(folder.file, size: 2_000_000))
                let values = seen.withLock { $0 }
                #expect(zip(values, values.dropFirst()).allSatisfy { $0.completedBytes <= $1.completedBytes })
                #expect(values.allSatisfy { $0.totalBytes == 2_000_000 })
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func aFailedDownloadLeavesItsPartForTheNextCallToResume(_ kind: AdapterKind) async throws {
            let folder = Folder()
            try await withConnection(kind) { connection, server in
                let key = UUID().uuidString
                let path = "download/1000000?key=\(key)&cut=300000"
                await #expect(throws: FaradayError.self) {
                    try await connection.download(path, to: folder.file, resumeAttempts: 0).value
                }
                let kept = Self.partialSize(folder)
                #expect(kept > 0 && kept <= 300_000)
                #expect(kind.isOnNIO || kept == 300_000, "nothing that arrived before the cut is lost")
                #expect(!FileManager.default.fileExists(atPath: folder.file.path))
                let env = try await connection.download(path, to: folder.file).value
                #expect(env.downloadedFile?.resumedFrom == [Int64(kept)])
                #expect(server.downloadRequests(key: key) == ["whole", "bytes=\(kept)-"])
                #expect(try Self.holdsPattern(folder.file, size: 1_000_000))
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func aFileThatChangedIsDownloadedAgainWhole(_ kind: AdapterKind) async throws {
            let folder = Folder()
            try await withConnection(kind) { connection, server in
                let key = UUID().uuidString
                await #expect(throws: FaradayError.self) {
                    try await connection.download(
                        "download/800000?key=\(key)&cut=200000",
                        to: folder.file,
                        resumeAttempts: 0
                    )
                    .value
                }
                // The server's ETag changed: If-Range does not match, and the answer is the whole file.
                let env = try await connection.download("download/800000?key=\(key)&version=v2", to: folder.file).value
                #expect(env.status == .ok && env.downloadedFile?.resumedFrom == [])
                #expect(server.downloadRequests(key: key).count == 2)
                #expect(try Self.holdsPattern(folder.file, size: 800_000))
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func aRangeOfAnotherVersionIsNotSplicedIn(_ kind: AdapterKind) async throws {
            let folder = Folder()
            try await withConnection(kind) { connection, server in
                let key = UUID().uuidString
                // The file changes after the first answer, and the server ignores If-Range.
                let path = "download/700000?key=\(key)&cut=200000&changes=1&if-range=ignore"
                let env = try await connection.download(path, to: folder.file).value
                #expect(env.status == .ok && env.downloadedFile?.resumedFrom == [])
                let requests = server.downloadRequests(key: key)
                #expect(requests.count == 3 && requests.last == "whole", "\(requests)")
                #expect(try Self.holdsPattern(folder.file, size: 700_000))
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func aWholePartIsMovedIntoPlaceAfterA416(_ kind: AdapterKind) async throws {
            let folder = Folder()
            try await withConnection(kind) { connection, server in
                let key = UUID().uuidString
                let path = "download/1000?key=\(key)"
                let url = try connection.makeRequest(method: .get, path).url.absoluteString
                try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
                try Data((0..<1000).map { UInt8($0 % 251) }).write(to: folder.partial)
                let record = #"{"version":1,"url":"\#(url)","validator":"\"v1-1000\""}"#
                try Data(record.utf8).write(to: URL(fileURLWithPath: folder.partial.path + ".json"))
                let env = try await connection.download(path, to: folder.file).value
                #expect(env.downloadedFile?.length == 1000)
                #expect(server.downloadRequests(key: key) == ["bytes=1000-"])
                #expect(try Self.holdsPattern(folder.file, size: 1000))
                #expect(!FileManager.default.fileExists(atPath: folder.partial.path))
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func aServerWithoutRangesStartsOverFromTheFirstByte(_ kind: AdapterKind) async throws {
            let folder = Folder()
            try await withConnection(kind) { connection, server in
                let key = UUID().uuidString
                let env = try await connection.download(
                    "download/900000?key=\(key)&cut=400000&ranges=no",
                    to: folder.file
                )
                .value
                #expect(env.status == .ok && env.downloadedFile?.resumedFrom == [])
                let requests = server.downloadRequests(key: key)
                #expect(requests.count == 2 && requests.first == "whole" && requests.last?.hasPrefix("bytes=") == true)
                #expect(kind.isOnNIO || requests.last == "bytes=400000-")
                #expect(try Self.holdsPattern(folder.file, size: 900_000))
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func aPartLongerThanTheFileStartsOverAfterA416(_ kind: AdapterKind) async throws {
            let folder = Folder()
            try await withConnection(kind) { connection, server in
                let key = UUID().uuidString
                let path = "download/600000?key=\(key)&cut=100000"
                await #expect(throws: FaradayError.self) {
                    try await connection.download(path, to: folder.file, resumeAttempts: 0).value
                }
                let handle = try FileHandle(forWritingTo: folder.partial)
                try handle.seekToEnd()
                try handle.write(contentsOf: Data(count: 600_000))
                try handle.close()
                let env = try await connection.download(path, to: folder.file).value
                #expect(env.status == .ok)
                let requests = server.downloadRequests(key: key)
                #expect(requests.count == 3 && requests.last == "whole")
                #expect(try Self.holdsPattern(folder.file, size: 600_000))
            }
        }

        /// A server that compresses whatever the request asks, under Decompression: the file holds
        /// the decoded bytes, and no record is kept that a later range would count wrongly.
        @Test(arguments: AdapterKind.allCases)
        func aBodyDecodedByALayerIsWrittenWholeAndNotResumable(_ kind: AdapterKind) async throws {
            let folder = Folder()
            try await withConnection(kind, handlers: [Decompression.Handler()]) { connection, _ in
                let seenRecord = Locked(false)
                let record = folder.partial.path + ".json"
                let env = try await connection.download("compressed?size=300000", to: folder.file)
                    .onDownloadProgress { _ in
                        if FileManager.default.fileExists(atPath: record) { seenRecord.withLock { $0 = true } }
                    }
                    .value
                #expect(env.downloadedFile?.length == 300_000)
                #expect(try Self.holdsPattern(folder.file, size: 300_000))
                #expect(!seenRecord.withLock { $0 })
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func aFailureStatusWritesNothingAndComesBackAsAResponse(_ kind: AdapterKind) async throws {
            let folder = Folder()
            try await withConnection(kind) { connection, _ in
                let env = try await connection.download("nowhere", to: folder.file).value
                #expect(env.status == .notFound && env.response?.text == "no route for /nowhere")
                #expect(env.downloadedFile == nil)
                #expect(!FileManager.default.fileExists(atPath: folder.file.path))
                #expect(!FileManager.default.fileExists(atPath: folder.partial.path))
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func anUnwritableDestinationIsAStorageError(_ kind: AdapterKind) async throws {
            let folder = Folder()
            try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
            try Data("a file".utf8).write(to: folder.file)
            try await withConnection(kind) { connection, _ in
                // The destination's folder would be a regular file.
                let error = await #expect(throws: FaradayError.self) {
                    try await connection.download("download/1000", to: folder.file.appending(path: "inside.bin")).value
                }
                #expect(error?.code == .storageFailed)
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func aCancelledDownloadKeepsItsPart(_ kind: AdapterKind) async throws {
            let folder = Folder()
            try await withConnection(kind) { connection, _ in
                // `/stall` sends five bytes, then nothing: the cancellation comes mid-transfer.
                let response = connection.download("stall", to: folder.file)
                response.onDownloadProgress { if $0.completedBytes > 0 { response.cancel() } }
                let error = await #expect(throws: FaradayError.self) { try await response.value }
                #expect(error?.code == .cancelled)
                #expect(!FileManager.default.fileExists(atPath: folder.file.path))
                #expect(Self.partialSize(folder) == 5)
            }
        }

        private static func outcome(_ response: Response) async -> Result<Env, FaradayError> {
            do {
                return .success(try await response.value)
            } catch {
                return .failure(error)
            }
        }

        /// What one cancelled download left, checked against what cancel means: a call that failed
        /// `cancelled` made no destination file; one that won the race wrote the whole file.
        private static func checkCancelledDownload(
            _ result: Result<Env, FaradayError>,
            _ folder: Folder,
            size: Int
        ) throws -> Bool {
            switch result {
            case .success(let env):
                #expect(env.downloadedFile?.length == Int64(size))
                #expect(try Self.holdsPattern(folder.file, size: size))
                return false
            case .failure(let error):
                #expect(error.code == .cancelled, "\(error)")
                #expect(
                    !FileManager.default.fileExists(atPath: folder.file.path),
                    "a cancelled download landed its file"
                )
                return true
            }
        }

        /// Issue 45: URLSession had read the rest of the file when the cancel came at a quarter, and
        /// the download wrote it all and moved it into place after failing with `cancelled`.
        @Test(arguments: AdapterKind.allCases)
        func aDownloadCancelledAtAQuarterLandsNothing(_ kind: AdapterKind) async throws {
            let size = 8_000_000
            try await withConnection(kind) { connection, _ in
                var cancelled = 0
                for _ in 0..<10 {
                    let folder = Folder()
                    let response = connection.download("download/\(size)", to: folder.file)
                    response.onDownloadProgress { if $0.completedBytes >= Int64(size / 4) { response.cancel() } }
                    let result = await Self.outcome(response)
                    if try Self.checkCancelledDownload(result, folder, size: size) {
                        cancelled += 1
                        #expect(Self.partialSize(folder) < size, "the part keeps what was written before the cancel")
                    }
                }
                #expect(cancelled > 0)
            }
        }

        /// Issue 45: cancelling a URLSession download once crashed the process in about 120 (a
        /// cancel that reached FoundationNetworking as the task ended). Five hundred cancels at
        /// random points: no crash, and each download either cancelled cleanly or whole.
        @Test(arguments: AdapterKind.allCases)
        func fiveHundredCancelsAtRandomPointsEndCleanly(_ kind: AdapterKind) async throws {
            let size = 200_000
            try await withConnection(kind) { connection, _ in
                var outcomes = (cancelled: 0, whole: 0)
                for _ in 0..<500 {
                    let folder = Folder()
                    let response = connection.download("download/\(size)", to: folder.file)
                    let delay = Int.random(in: 0...4000)
                    let canceller = Task {
                        try? await Task.sleep(for: .microseconds(delay))
                        response.cancel()
                    }
                    let result = await Self.outcome(response)
                    await canceller.value
                    if try Self.checkCancelledDownload(result, folder, size: size) {
                        outcomes.cancelled += 1
                    } else {
                        outcomes.whole += 1
                    }
                }
                #expect(outcomes.cancelled + outcomes.whole == 500)
                #expect(outcomes.cancelled > 0, "the cancels came mid-transfer, not only after the end")
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func aGigabyteGoesToDiskWithBoundedMemory(_ kind: AdapterKind) async throws {
            let folder = Folder()
            let size = 1 << 30
            try await withConnection(kind) { connection, _ in
                let before = residentMemory()
                let peak = Locked(before)
                let env = try await connection.download("download/\(size)", to: folder.file) {
                    // URLSession on Linux cannot pause a transfer: what curl reads while the disk
                    // takes its time queues up (the memory bound is not checked for it).
                    if kind == .urlSession && !platformCanPauseURLSession { $0.options.maxBufferedBodySize = 2 << 30 }
                }
                .onDownloadProgress { _ in
                    let now = residentMemory()
                    peak.withLock { $0 = max($0, now) }
                }
                .value
                #expect(env.downloadedFile?.length == Int64(size))
                let attributes = try FileManager.default.attributesOfItem(atPath: folder.file.path)
                #expect((attributes[.size] as? NSNumber)?.intValue == size)
                if kind.isOnNIO || platformCanPauseURLSession {
                    let growth = peak.withLock { $0 } - before
                    #expect(growth < 256 << 20, "resident memory grew by \(growth >> 20) MiB")
                }
            }
        }
    }
}
