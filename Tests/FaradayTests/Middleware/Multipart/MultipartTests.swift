import Faraday
import Foundation
import Testing

@Suite(.timeLimit(.minutes(1))) struct MultipartTests {
    /// A temporary file holding `text`, removed when the test ends.
    private func temporaryFile(_ text: String, name: String = "notes.txt") throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("faraday-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    @Test func encodesTextDataAndFilePartsWithTheirHeaders() async throws {
        let file = try temporaryFile("file body")
        let form = MultipartForm(
            parts: [
                .text("title", "Holiday ✈︎"),
                .data("blob", Data([0, 1, 2]), filename: "blob.bin"),
                .file("notes", at: file, contentType: "text/plain", headers: [.init("Content-ID")!: "<n1>"]),
            ],
            boundary: "XyZ"
        )
        let body = try form.encoded()
        let bytes = try await body.collect(upTo: 1 << 20)
        let expected =
            Data(
                """
                --XyZ\r
                Content-Disposition: form-data; name="title"\r
                \r
                Holiday ✈︎\r
                --XyZ\r
                Content-Disposition: form-data; name="blob"; filename="blob.bin"\r
                Content-Type: application/octet-stream\r
                \r

                """.utf8
            ) + Data([0, 1, 2])
            + Data(
                """
                \r
                --XyZ\r
                Content-Disposition: form-data; name="notes"; filename="notes.txt"\r
                Content-Type: text/plain\r
                Content-ID: <n1>\r
                \r
                file body\r
                --XyZ--\r

                """.utf8
            )
        #expect(bytes == expected)
        #expect(body.length == expected.count)
        #expect(body.isReplayable)
        #expect(try await body.collect(upTo: 1 << 20) == expected, "a second send reads the file again")
    }

    @Test func theMiddlewareSetsTheContentTypeWithTheBoundary() async throws {
        let form: MultipartForm = [.text("a", "1")]
        let stubs = TestAdapter()
        stubs.post(
            "/v1/up",
            headers: [.contentType: "multipart/form-data; boundary=\(form.boundary)"],
            body: .equals(
                "--\(form.boundary)\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--\(form.boundary)--\r\n"
            )
        ) { env, _ in StubResponse(body: env.request.headers[.contentLength] ?? "") }
        let connection = try makeConnection([Multipart.Handler()], adapter: stubs)
        _ = try await connection.post("up", body: .multipart(form)).value
    }

    @Test func aMultipartContentTypeTheCallerChoseIsKept() async throws {
        let form = MultipartForm(parts: [.text("a", "1")], boundary: "b1")
        let stubs = TestAdapter()
        stubs.post("/v1/up", headers: [.contentType: "multipart/related; boundary=b1"]) { _, _ in StubResponse() }
        let connection = try makeConnection([Multipart.Handler()], adapter: stubs)
        _ = try await connection.post("up", headers: [.contentType: "multipart/related"], body: .multipart(form)).value
    }

    @Test func hostileNamesCannotBreakTheHeaderBlock() async throws {
        let form = MultipartForm(
            parts: [
                .data(
                    "x\"\r\nInjected: yes",
                    Data("v".utf8),
                    filename: "a\"b\r\n.txt",
                    headers: [.init("X-Note")!: "ok\r\nEvil: 1"]
                )
            ],
            boundary: "B"
        )
        let text = String(decoding: try await form.encoded().collect(upTo: 1 << 16), as: UTF8.self)
        #expect(text.contains(#"name="x%22%0D%0AInjected: yes"; filename="a%22b%0D%0A.txt""#))
        #expect(!text.contains("\r\nInjected:"))
        #expect(!text.contains("\r\nEvil:"))
    }

    @Test(arguments: ["", String(repeating: "a", count: 71), "semi;colon", "trailing "])
    func invalidBoundariesAreRefused(_ boundary: String) {
        #expect {
            try MultipartForm(parts: [.text("a", "1")], boundary: boundary).encoded()
        } throws: { error in
            (error as? FaradayError)?.code == .encodingFailed
        }
    }

    @Test func generatedBoundariesAreValidAndDistinct() throws {
        let boundaries = (0..<100).map { _ in MultipartForm.makeBoundary() }
        #expect(Set(boundaries).count == 100)
        for boundary in boundaries { _ = try MultipartForm(parts: [], boundary: boundary).encoded() }
    }

    @Test func aMissingFileFailsBeforeAnythingIsSent() async throws {
        let stubs = TestAdapter()
        stubs.post("/v1/up") { _, _ in StubResponse() }
        let connection = try makeConnection([Multipart.Handler()], adapter: stubs)
        let missing = URL(filePath: "/nonexistent/\(UUID().uuidString).bin")
        await #expect {
            try await connection.post("up", body: .multipart([.file("f", at: missing)])).value
        } throws: { error in
            guard let error = error as? FaradayError else { return false }
            return error.code == .encodingFailed && error.message.contains(missing.path) && error.method == .post
        }
        #expect(stubs.calls.isEmpty)
    }

    @Test func aDirectoryIsNotAFile() {
        #expect(throws: FaradayError.self) {
            try MultipartForm(parts: [.file("f", at: FileManager.default.temporaryDirectory)]).encoded()
        }
    }

    @Test func aFileThatChangesSizeFailsTheUploadInsteadOfSendingTheWrongLength() async throws {
        let file = try temporaryFile("short")
        let body = try MultipartForm(parts: [.file("f", at: file)]).encoded()
        try Data("much longer than before".utf8).write(to: file)
        await #expect {
            try await body.collect(upTo: 1 << 20)
        } throws: { error in
            (error as? FaradayError)?.code == .encodingFailed
        }
        try Data("s".utf8).write(to: file)
        await #expect(throws: FaradayError.self) { try await body.collect(upTo: 1 << 20) }
    }

    @Test func otherBodiesPassThrough() async throws {
        let stubs = TestAdapter()
        stubs.post("/v1/x", body: .equals("raw")) { env, _ in
            StubResponse(body: env.request.headers[.contentType] ?? "none")
        }
        let connection = try makeConnection([Multipart.Handler()], adapter: stubs)
        #expect(
            try await connection.post("x", body: .bytes(Data("raw".utf8))).value.response?.text
                == "application/octet-stream"
        )
    }
}
