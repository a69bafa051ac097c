import Faraday
import FaradayTestSupport
import Foundation
import Testing

extension AdapterConformance {
    /// Upload and download progress on each adapter against the in-process server.
    @Suite(.timeLimit(.minutes(2))) struct ProgressTests {
        /// Collects a progress sequence in a task of its own, as an app would.
        private static func collect(_ progress: AsyncStream<TransferProgress>) -> Task<[TransferProgress], Never> {
            Task {
                var values: [TransferProgress] = []
                for await value in progress { values.append(value) }
                return values
            }
        }

        private static func expectMonotonic(_ values: [TransferProgress], endingAt size: Int64) {
            #expect(values.count >= 2, "\(values)")
            #expect(zip(values, values.dropFirst()).allSatisfy { $0.completedBytes <= $1.completedBytes }, "\(values)")
            #expect(values.allSatisfy { $0.completedBytes <= size })
            #expect(values.last == TransferProgress(completedBytes: size, totalBytes: size))
            #expect(values.last?.fractionCompleted == 1)
        }

        @Test(arguments: AdapterKind.allCases, [true, false])
        func aDownloadReportsEveryStepUpToItsLength(_ kind: AdapterKind, _ streamed: Bool) async throws {
            try await withConnection(kind) { connection, _ in
                let size: Int64 = 3_000_000
                let response = connection.get("bytes/\(size)?length=1", streaming: streamed ? .chunks : nil)
                let progress = Self.collect(response.downloadProgress)
                let env = try await response.value
                let values = await progress.value
                Self.expectMonotonic(values, endingAt: size)
                #expect(values.first == TransferProgress(completedBytes: 0, totalBytes: size))
                #expect(values.dropLast().allSatisfy { $0.totalBytes == size })
                #expect(env.status == .ok)
                // Throttled: a value per percent at most, plus the first and the last.
                #expect(values.count <= 103)
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func aChunkedDownloadLearnsItsTotalAtTheEnd(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, _ in
                let size: Int64 = 1_000_000
                let response = connection.get("bytes/\(size)")
                let progress = Self.collect(response.downloadProgress)
                _ = try await response.value
                let values = await progress.value
                #expect(values.first == TransferProgress(completedBytes: 0, totalBytes: nil))
                #expect(values.dropLast().allSatisfy { $0.totalBytes == nil && $0.fractionCompleted == nil })
                Self.expectMonotonic(values, endingAt: size)
            }
        }

        /// A body the server compresses, asked for by Decompression: progress never passes its
        /// total, whether the adapter hands over the encoded bytes (AsyncHTTPClient, counted
        /// against `Content-Length`) or its platform decodes them first (URLSession, whose total is
        /// then unknown until the end).
        @Test(arguments: AdapterKind.allCases)
        func aCompressedDownloadNeverPassesItsTotal(_ kind: AdapterKind) async throws {
            try await withConnection(kind, handlers: [Decompression.Handler()]) { connection, _ in
                let response = connection.get("compressed?encoding=gzip&size=500000")
                let progress = Self.collect(response.downloadProgress)
                let env = try await response.value
                let values = await progress.value
                #expect(env.body.count == 500_000)
                #expect(
                    values.allSatisfy { value in value.totalBytes.map { value.completedBytes <= $0 } ?? true },
                    "\(values)"
                )
                #expect(values.last?.fractionCompleted == 1, "\(values)")
            }
        }

        @Test(arguments: AdapterKind.allCases, [true, false])
        func anUploadReportsTheBytesSent(_ kind: AdapterKind, _ knownLength: Bool) async throws {
            try await withConnection(kind) { connection, _ in
                let size = 4 << 20
                let block = Data(repeating: 7, count: 64 << 10)
                let body: RequestBody = .stream(length: knownLength ? size : nil) {
                    AsyncStream<Data> { continuation in
                        for _ in 0..<(size / block.count) { continuation.yield(block) }
                        continuation.finish()
                    }
                }
                let response = connection.post("upload", body: body)
                let progress = Self.collect(response.uploadProgress)
                let env = try await response.value
                let values = await progress.value
                Self.expectMonotonic(values, endingAt: Int64(size))
                if knownLength { #expect(values.dropLast().allSatisfy { $0.totalBytes == Int64(size) }) }
                #expect(env.response?.text?.hasPrefix(#"{"bytes":\#(size),"#) == true)
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func aMultipartFileUploadReportsItsWholeLength(_ kind: AdapterKind) async throws {
            let file = FileManager.default.temporaryDirectory.appending(path: "progress-\(UUID().uuidString).bin")
            try Data(repeating: 1, count: 2_000_000).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            try await withConnection(kind) { connection, _ in
                let form: MultipartForm = [.text("title", "t"), .file("attachment", at: file, filename: "a.bin")]
                let body = try form.encoded()
                let length = try #require(body.length)
                let response = connection.post("multipart") {
                    $0.body = body
                    $0.headers[.contentType] = form.contentType
                }
                let progress = Self.collect(response.uploadProgress)
                #expect(try await response.value.status == .ok)
                Self.expectMonotonic(await progress.value, endingAt: Int64(length))
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func callbacksSeeTheSameStepsInOrderAndNothingAfterTheEnd(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, _ in
                let size: Int64 = 500_000
                let seen = Locked<[TransferProgress]>([])
                let (ended, signal) = AsyncStream<Void>.makeStream()
                let env = try await connection.get("bytes/\(size)?length=1")
                    .onDownloadProgress { progress in
                        seen.withLock { $0.append(progress) }
                        if progress.totalBytes == progress.completedBytes && progress.completedBytes == size {
                            signal.finish()
                        }
                    }
                    .value
                for await _ in ended {}
                Self.expectMonotonic(seen.withLock { $0 }, endingAt: size)
                #expect(env.body.count == Int(size))
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func anObserverThatComesAfterTheEndGetsTheLastValueOnly(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, _ in
                let response = connection.get("bytes/70000?length=1")
                let during = Self.collect(response.downloadProgress)
                _ = try await response.value
                _ = await during.value
                var after: [TransferProgress] = []
                for await value in response.downloadProgress { after.append(value) }
                #expect(after == [TransferProgress(completedBytes: 70000, totalBytes: 70000)])
                // Nobody observed the upload of this GET: its sequence ends at once, empty.
                var uploads = 0
                for await _ in response.uploadProgress { uploads += 1 }
                #expect(uploads == 0)
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func aCutTransferEndsTheSequenceWithoutAFinalValue(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, _ in
                let response = connection.get("fault/reset-mid-body")
                let progress = Self.collect(response.downloadProgress)
                await #expect(throws: FaradayError.self) { try await response.value }
                let values = await progress.value
                #expect(values.allSatisfy { $0.totalBytes == 100_000 && $0.completedBytes < 100_000 }, "\(values)")
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func aRetriedCallCountsAgainForTheAttemptThatSucceeds(_ kind: AdapterKind) async throws {
            let retry = Retry.Handler(statuses: [503], methods: [.put], sleep: { _ in })
            try await withConnection(kind, handlers: [retry]) { connection, _ in
                let key = UUID().uuidString
                let response = connection.put(
                    "flaky?key=\(key)&failures=1",
                    body: .text(String(repeating: "x", count: 1000))
                )
                let uploads = Self.collect(response.uploadProgress)
                let env = try await response.value
                #expect(env.status == .ok)
                let values = await uploads.value
                #expect(values.last == TransferProgress(completedBytes: 1000, totalBytes: 1000))
            }
        }
    }
}
