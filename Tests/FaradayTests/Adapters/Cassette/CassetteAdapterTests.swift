import Faraday
import Foundation
import Testing

/// The cassette's modes, matching and file handling, recording from a `TestAdapter`.
@Suite struct CassetteAdapterTests {
    private let file = FileManager.default.temporaryDirectory.appending(path: "cassette-\(UUID().uuidString).json")

    /// A recorder that answers `GET /n` with its own count, so that a recorded answer and a new
    /// one differ.
    private func recorder() -> TestAdapter {
        let stubs = TestAdapter()
        let count = Locked(0)
        stubs.stub(.get, .regex("/.*")) { _, _ in
            StubResponse(body: "answer \(count.increment())")
        }
        return stubs
    }

    private func text(_ adapter: CassetteAdapter, _ path: String) async throws -> String? {
        let connection = try Connection(url: "https://api.example.test") { $0.adapter = adapter }
        return try await connection.get(path).value.response?.text
    }

    private func noStub(_ adapter: CassetteAdapter, _ path: String) async {
        let error = await #expect(throws: FaradayError.self) { try await text(adapter, path) }
        #expect(error?.code == .noStubMatched)
    }

    @Test func onceRecordsAnEmptyCassetteThenOnlyReplays() async throws {
        defer { try? FileManager.default.removeItem(at: file) }
        let first = CassetteAdapter(cassette: file, recordingWith: recorder())
        #expect(try await text(first, "a") == "answer 1")
        #expect(try await text(first, "b") == "answer 2")
        let second = CassetteAdapter(cassette: file, recordingWith: recorder())
        #expect(try await text(second, "b") == "answer 2")
        #expect(try await text(second, "a") == "answer 1")
        await noStub(second, "c")
        // Each interaction answers once, unless repeats are allowed.
        await noStub(second, "a")
        let repeating = CassetteAdapter(cassette: file, recordingWith: recorder(), allowsPlaybackRepeats: true)
        #expect(try await text(repeating, "a") == "answer 1")
        #expect(try await text(repeating, "a") == "answer 1")
    }

    @Test func newEpisodesReplaysWhatItHasAndRecordsTheRest() async throws {
        defer { try? FileManager.default.removeItem(at: file) }
        _ = try await text(CassetteAdapter(cassette: file, recordingWith: recorder()), "a")
        let adapter = CassetteAdapter(cassette: file, mode: .newEpisodes, recordingWith: recorder())
        #expect(try await text(adapter, "a") == "answer 1")
        #expect(try await text(adapter, "b") == "answer 1")  // a new recorder's first answer
        #expect(
            try Cassette.load(from: file)?.interactions.map(\.request.url) == [
                "https://api.example.test/a", "https://api.example.test/b",
            ]
        )
    }

    @Test func noneNeverRecordsAndAllAlwaysDoes() async throws {
        defer { try? FileManager.default.removeItem(at: file) }
        await noStub(CassetteAdapter(cassette: file, mode: .none, recordingWith: recorder()), "a")
        #expect(!FileManager.default.fileExists(atPath: file.path))
        _ = try await text(CassetteAdapter(cassette: file, recordingWith: recorder()), "a")
        let again = CassetteAdapter(cassette: file, mode: .all, recordingWith: recorder())
        #expect(try await text(again, "b") == "answer 1")
        #expect(try await text(again, "b") == "answer 2")
        #expect(try Cassette.load(from: file)?.interactions.count == 2, "the old cassette was replaced")
    }

    @Test func matchersDecideWhatMustBeEqual() async throws {
        defer { try? FileManager.default.removeItem(at: file) }
        _ = try await text(CassetteAdapter(cassette: file, recordingWith: recorder()), "a?page=1")
        let byPath = CassetteAdapter(cassette: file, recordingWith: recorder(), matchers: [.method, .path])
        #expect(try await text(byPath, "a?page=2") == "answer 1")
        await noStub(CassetteAdapter(cassette: file, recordingWith: recorder()), "a?page=2")
    }

    @Test func aCorruptOrForeignCassetteIsAClearError() async throws {
        defer { try? FileManager.default.removeItem(at: file) }
        for (content, code, words) in [
            ("not json", FaradayError.Code.parsingFailed, "not a cassette"),
            (#"{"version": 2, "interactions": []}"#, .storageFailed, "version 2"),
            (#"{"version": 1, "interactions": [{"request": 3}]}"#, .parsingFailed, "corrupt"),
            (
                #"{"version": 1, "interactions": [{"request": {"method": "GET", "url": "u", "headers": []}, "recordedAt": "2026-01-01T00:00:00Z", "response": {"status": 1000, "headers": []}}]}"#,
                .parsingFailed, "out of range"
            ),
            (
                #"{"version": 1, "interactions": [{"request": {"method": "GET", "url": "u", "headers": [], "body": {"base64": "%%"}}}]}"#,
                .parsingFailed, "corrupt"
            ),
        ] {
            try Data(content.utf8).write(to: file)
            let error = await #expect(throws: FaradayError.self) {
                try await text(CassetteAdapter(cassette: file, recordingWith: recorder()), "a")
            }
            #expect(error?.code == code && error?.message.contains(words) == true, "\(content)")
        }
    }

    @Test func aBodyThatAlreadyHoldsThePlaceholderIsRedactedAllTheSame() async throws {
        defer { try? FileManager.default.removeItem(at: file) }
        let stubs = TestAdapter()
        let secret = #"{"note":"[REDACTED]","password":"hunter2"}"#
        stubs.stub(
            .get,
            .path("/me"),
            response: StubResponse(headers: [.contentType: "application/json"], body: secret)
        )
        stubs.stub(
            .get,
            .path("/feed"),
            response: StubResponse(
                headers: [.contentType: "application/json"],
                body: ResponseBody(pieces: [Data(#"{"token":"#.utf8), Data(#""t0k3n"}"#.utf8)])
            )
        )
        let recording = try Connection(url: "https://api.example.test") {
            $0.adapter = CassetteAdapter(cassette: file, recordingWith: stubs)
        }
        _ = try await recording.get("me").value
        _ = try await recording.get("feed", streaming: .chunks).value
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(!text.contains("hunter2") && !text.contains("t0k3n"))
    }

    /// The filter sees each interaction before it is written, bodies as bytes, and what it
    /// changes is what the cassette keeps and replays (VCR's `before_record`).
    @Test func theFilterChangesWhatIsWritten() async throws {
        defer { try? FileManager.default.removeItem(at: file) }
        let stubs = TestAdapter()
        stubs.stub(.get, .path("/me"), response: StubResponse(body: #"{"email":"ada@example.com"}"#))
        let recording = try Connection(url: "https://api.example.test") {
            $0.adapter = CassetteAdapter(cassette: file, recordingWith: stubs) { interaction in
                let text = String(decoding: interaction.response.body ?? Data(), as: UTF8.self)
                interaction.response.body = Data(text.replacingOccurrences(of: "ada@example.com", with: "x@y").utf8)
            }
        }
        _ = try await recording.get("me").value
        #expect(try String(contentsOf: file, encoding: .utf8).contains("ada@example.com") == false)
        let replay = try Connection(url: "https://api.example.test") {
            $0.adapter = CassetteAdapter(cassette: file, mode: .none, recordingWith: TestAdapter())
        }
        #expect(try await replay.get("me").value.response?.text == #"{"email":"x@y"}"#)
    }

    @Test func binaryBodiesAreBase64AndStreamsKeepTheirPieces() async throws {
        defer { try? FileManager.default.removeItem(at: file) }
        let stubs = TestAdapter()
        stubs.stub(.get, .path("/binary"), response: StubResponse(body: Data([0, 1, 2, 255])))
        stubs.stub(
            .get,
            .path("/stream"),
            response: StubResponse(body: ResponseBody(pieces: ["a", "bb", "ccc"].map { Data($0.utf8) }))
        )
        let recording = try Connection(url: "https://api.example.test") {
            $0.adapter = CassetteAdapter(cassette: file, recordingWith: stubs)
        }
        _ = try await recording.get("binary").value
        _ = try await recording.get("stream", streaming: .chunks).value
        let cassette = try #require(try Cassette.load(from: file))
        #expect(cassette.interactions[0].response.body == Data([0, 1, 2, 255]))
        #expect(cassette.interactions[1].response.chunks?.map(\.body) == ["a", "bb", "ccc"].map { Data($0.utf8) })
        // In the file: other bytes in base64, UTF-8 text as it is.
        let json = try String(contentsOf: file, encoding: .utf8).replacingOccurrences(of: " ", with: "")
        #expect(json.contains(#""base64":"AAEC\/w==""#) || json.contains(#""base64":"AAEC/w==""#))
        #expect(json.contains(#""text":"bb""#))

        let replay = try Connection(url: "https://api.example.test") {
            $0.adapter = CassetteAdapter(cassette: file, mode: .none, recordingWith: TestAdapter(), timing: .recorded)
        }
        #expect(try await replay.get("binary").value.body == Data([0, 1, 2, 255]))
        var frames: [String] = []
        for try await env in replay.get("stream", streaming: .chunks).completions where !env.isFinal {
            frames.append(env.response?.text ?? "")
        }
        #expect(frames == ["a", "bb", "ccc"])
    }
}
