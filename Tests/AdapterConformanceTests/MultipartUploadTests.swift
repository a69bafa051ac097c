import Faraday
import FaradayTestSupport
import Foundation
import Testing

extension AdapterConformance {
    @Suite(.timeLimit(.minutes(10))) struct MultipartUploadTests {
        /// What the server's `/multipart` route reports.
        struct Summary: Decodable {
            struct Part: Decodable {
                let headers: [String: String]
                let name: String?
                let filename: String?
                let length: Int
                let followsPattern: Bool
                let content: String?
            }
            let parts: [Part]
            let error: String?
        }

        /// A file of `length` bytes following the server's `offset % 251` pattern, written in blocks.
        static func patternFile(length: Int) throws -> URL {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent(
                "faraday-upload-\(UUID().uuidString).bin"
            )
            let block = Data((0..<(251 * 4096)).map { UInt8($0 % 251) })
            guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown)
            }
            let handle = try FileHandle(forWritingTo: url)
            var written = 0
            while written < length {
                let count = min(block.count, length - written)
                try handle.write(contentsOf: block.prefix(count))
                written += count
            }
            try handle.close()
            return url
        }

        @Test(arguments: AdapterKind.allCases)
        func theServerReceivesEveryPart(_ kind: AdapterKind) async throws {
            let file = try Self.patternFile(length: 100_000)
            defer { try? FileManager.default.removeItem(at: file) }
            try await withConnection(kind) { connection, _ in
                let form: MultipartForm = [
                    .text("title", "Résumé \"draft\""),
                    .data("json", Data(#"{"a":1}"#.utf8), filename: "a.json", contentType: "application/json"),
                    .file("attachment", at: file, filename: "pattern.bin", headers: [.init("X-Part")!: "3"]),
                ]
                let summary = try await connection.post("multipart") {
                    $0.body = try form.encoded()
                    $0.headers[.contentType] = form.contentType
                }.decode(Summary.self)
                #expect(summary.error == nil)
                try #require(summary.parts.count == 3)
                #expect(summary.parts[0].name == "title")
                #expect(summary.parts[0].filename == nil)
                #expect(summary.parts[0].content == "Résumé \"draft\"")
                #expect(summary.parts[1].filename == "a.json")
                #expect(summary.parts[1].headers["content-type"] == "application/json")
                #expect(summary.parts[1].content == #"{"a":1}"#)
                #expect(summary.parts[2].name == "attachment")
                #expect(summary.parts[2].filename == "pattern.bin")
                #expect(summary.parts[2].headers["x-part"] == "3")
                #expect(summary.parts[2].length == 100_000)
                #expect(summary.parts[2].followsPattern)
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func aGigabyteFileUploadsWithBoundedMemory(_ kind: AdapterKind) async throws {
            let total = 1 << 30
            let file = try Self.patternFile(length: total)
            defer { try? FileManager.default.removeItem(at: file) }
            try await withConnection(kind) { connection, _ in
                let before = residentMemory()
                let peak = Peak(before)
                let sampler = Task {
                    while !Task.isCancelled {
                        peak.observe(residentMemory())
                        try? await Task.sleep(for: .milliseconds(20))
                    }
                }
                defer { sampler.cancel() }
                let form: MultipartForm = [
                    .text("description", "one gigabyte"),
                    .file("video", at: file, contentType: "video/mp4"),
                    .text("checksum", "none"),
                ]
                let response = try await connection.post("multipart") {
                    $0.body = try form.encoded()
                    $0.headers[.contentType] = form.contentType
                }.value
                sampler.cancel()
                let summary = try JSONDecoder().decode(Summary.self, from: response.body)
                #expect(summary.error == nil)
                try #require(summary.parts.count == 3)
                #expect(summary.parts[0].content == "one gigabyte")
                #expect(summary.parts[1].filename == file.lastPathComponent)
                #expect(summary.parts[1].headers["content-type"] == "video/mp4")
                #expect(summary.parts[1].length == total)
                #expect(summary.parts[1].followsPattern)
                #expect(summary.parts[2].content == "none")
                #expect(peak.value - before < 256 << 20, "resident memory grew by \((peak.value - before) >> 20) MiB")
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func theServerRejectsATruncatedMultipartBody(_ kind: AdapterKind) async throws {
            // The control case for the reader: without the closing boundary the server says so.
            try await withConnection(kind) { connection, _ in
                let response = try await connection.post("multipart") {
                    $0.headers[.contentType] = "multipart/form-data; boundary=B"
                    $0.body = .text("--B\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\npartial")
                }.value
                #expect(response.status?.code == 400)
                #expect(try JSONDecoder().decode(Summary.self, from: response.body).error != nil)
            }
        }
    }
}

/// The largest value observed, from any task.
final class Peak: Sendable {
    private let state: Locked<Int>
    init(_ initial: Int) { state = Locked(initial) }
    func observe(_ value: Int) { state.withLock { $0 = max($0, value) } }
    var value: Int { state.withLock { $0 } }
}
