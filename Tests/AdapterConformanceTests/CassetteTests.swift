import Faraday
import FaradayAsyncHTTPClient
import FaradayTestSupport
import Foundation
import Testing

extension AdapterConformance {
    /// Record against the in-process server through each adapter, then replay with the server
    /// stopped and get the same completions.
    @Suite(.timeLimit(.minutes(2))) struct CassetteTests {
        private static func cassetteFile() -> URL {
            FileManager.default.temporaryDirectory.appending(path: "faraday-cassette-\(UUID().uuidString).json")
        }

        /// What a test compares between the recorded and the replayed calls.
        private struct Seen: Equatable {
            let status: Int?
            let headers: [String]
            let bodies: [Data]
        }

        private static func run(_ connection: Connection, streamed: Bool) async throws -> [Seen] {
            var seen: [Seen] = []
            for path in ["echo?a=1", "chunked?count=4&size=40", "bytes/70000?length=1", "redirect/302"] {
                var bodies: [Data] = []
                var last: Env?
                for try await env in connection.get(path, streaming: streamed ? .chunks : nil).completions {
                    if !env.isFinal || !streamed { bodies.append(env.body) }
                    last = env
                }
                seen.append(
                    Seen(
                        status: last?.status?.code,
                        headers: last?.responseHeaders.map { "\($0.name.canonicalName): \($0.value)" } ?? [],
                        bodies: bodies
                    )
                )
            }
            return seen
        }

        /// Issue 45: the cassette kept only the 200 of a retried call, so a replay never retried.
        /// Every exchange that reached the adapter is recorded, and replayed in order.
        @Test(arguments: AdapterKind.allCases, [false, true])
        func theAttemptsARetryDiscardsAreRecordedAndReplayed(_ kind: AdapterKind, _ streamed: Bool) async throws {
            let file = Self.cassetteFile()
            defer { try? FileManager.default.removeItem(at: file) }
            let server = try await TestServer.start()
            let base = server.baseURL.absoluteString
            let path = "flaky?key=\(UUID().uuidString)&failures=1"
            let retry = Retry.Handler(statuses: [503], sleep: { _ in })
            let real = try kind.makeAdapter()
            let recordingAdapter = CassetteAdapter(cassette: file, recordingWith: real)
            let recording = try Connection(url: base) {
                $0.use(retry)
                $0.adapter = recordingAdapter
            }
            let recorded = try await recording.get(path, streaming: streamed ? .chunks : nil).value
            #expect(recorded.status == .ok)
            #expect(recordingAdapter.interactions.map(\.response.status) == [503, 200])
            #expect(recordingAdapter.interactions.map(\.response.isTruncated) == [streamed ? true : nil, nil])
            try await (real as? AsyncHTTPClientAdapter)?.shutdown()
            try await server.shutdown()

            let offline = try kind.makeAdapter()
            let attempts = Locked<[Int]>([])
            let replaying = try Connection(url: base) {
                $0.use(
                    Retry.Handler(
                        statuses: [503],
                        onRetry: { attempt in attempts.withLock { $0.append(attempt.number) } },
                        sleep: { _ in }
                    )
                )
                $0.adapter = CassetteAdapter(cassette: file, recordingWith: offline)
            }
            let replayed = try await replaying.get(path, streaming: streamed ? .chunks : nil).value
            try await (offline as? AsyncHTTPClientAdapter)?.shutdown()
            #expect(replayed.status == .ok)
            #expect(attempts.withLock { $0 }.count == 1, "the replay retried the recorded 503 once")
            if !streamed { #expect(replayed.body == recorded.body) }
        }

        @Test(arguments: AdapterKind.allCases, [false, true])
        func aReplayWithTheServerStoppedGivesTheSameCompletions(_ kind: AdapterKind, _ streamed: Bool) async throws {
            let file = Self.cassetteFile()
            defer { try? FileManager.default.removeItem(at: file) }
            let server = try await TestServer.start()
            let base = server.baseURL.absoluteString
            let real = try kind.makeAdapter()
            let recording = try Connection(url: base) {
                $0.adapter = CassetteAdapter(cassette: file, recordingWith: real)
            }
            let recorded = try await Self.run(recording, streamed: streamed)
            try await (real as? AsyncHTTPClientAdapter)?.shutdown()
            try await server.shutdown()

            let offline = try kind.makeAdapter()  // would fail: nothing listens any more
            let cassette = CassetteAdapter(cassette: file, recordingWith: offline)
            let replaying = try Connection(url: base) { $0.adapter = cassette }
            let replayed = try await Self.run(replaying, streamed: streamed)
            try await (offline as? AsyncHTTPClientAdapter)?.shutdown()
            #expect(replayed == recorded)
            #expect(cassette.interactions.count == 4)
            if streamed {
                let chunked = try #require(cassette.interactions.first { $0.request.url.contains("chunked") })
                #expect(chunked.response.chunks?.count == recorded[1].bodies.count)
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func noSecretReachesTheCassette(_ kind: AdapterKind) async throws {
            let file = Self.cassetteFile()
            defer { try? FileManager.default.removeItem(at: file) }
            try await withConnection(kind) { _, server in
                let adapter = CassetteAdapter(cassette: file, recordingWith: try kind.makeAdapter())
                let connection = try Connection(url: server.baseURL.absoluteString) { builder in
                    builder.use(Authorization.Handler(.bearer("live-bearer-7f3a")))
                    builder.adapter = adapter
                }
                _ = try await connection.post(
                    "upload?api_key=live-key-91b2&page=2",
                    headers: [.cookie: "session=live-cookie-55c1"],
                    body: .bytes(
                        Data(#"{"user":"ada","password":"live-password-0d9e"}"#.utf8),
                        contentType: "application/json"
                    )
                ).value
                _ = try await connection.get("cookies/set").value
                // A later run with other live secrets matches the redacted interactions.
                let replay = try Connection(url: server.baseURL.absoluteString) { builder in
                    builder.use(Authorization.Handler(.bearer("another-token")))
                    builder.adapter = CassetteAdapter(cassette: file, mode: .none, recordingWith: TestAdapter())
                }
                let env = try await replay.post(
                    "upload?api_key=another-key&page=2",
                    headers: [.cookie: "session=other"],
                    body: .bytes(Data(#"{"user":"ada","password":"other"}"#.utf8), contentType: "application/json")
                ).value
                #expect(env.status == .ok)
            }
            let text = try String(contentsOf: file, encoding: .utf8)
            for secret in ["live-bearer-7f3a", "live-key-91b2", "live-cookie-55c1", "live-password-0d9e", "fixdate=1"] {
                #expect(!text.contains(secret), "\(secret) reached the cassette")
            }
            #expect(text.contains("[REDACTED]") && text.contains("page=2") && text.contains(#""version" : 1"#))
        }

        /// A gzip body is kept decoded, so that redaction can read it; the replay through
        /// Decompression gives the same bytes.
        @Test(arguments: AdapterKind.allCases)
        func anEncodedBodyIsKeptDecoded(_ kind: AdapterKind) async throws {
            let file = Self.cassetteFile()
            defer { try? FileManager.default.removeItem(at: file) }
            try await withConnection(kind) { _, server in
                let recording = try Connection(url: server.baseURL.absoluteString) { builder in
                    builder.use(Decompression.Handler())
                    builder.adapter = CassetteAdapter(cassette: file, recordingWith: try kind.makeAdapter())
                }
                let recorded = try await recording.get("compressed?size=5000").value.body
                let replaying = try Connection(url: server.baseURL.absoluteString) { builder in
                    builder.use(Decompression.Handler())
                    builder.adapter = CassetteAdapter(cassette: file, mode: .none, recordingWith: TestAdapter())
                }
                #expect(try await replaying.get("compressed?size=5000").value.body == recorded)
                #expect(recorded.count == 5000)
                let interaction = try #require(try Cassette.load(from: file)?.interactions.first)
                #expect(!interaction.response.headers.contains { $0.first == "content-encoding" })
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func testAdapterPassesUnmatchedRequestsThrough(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { _, server in
                let real = try kind.makeAdapter()
                let stubs = TestAdapter(passThrough: real)
                stubs.get("/stubbed") { _, _ in StubResponse(body: "from a stub") }
                let connection = try Connection(url: server.baseURL.absoluteString) { $0.adapter = stubs }
                #expect(try await connection.get("stubbed").value.response?.text == "from a stub")
                let echo = try await connection.post("echo", body: .text("to the network")).echo
                #expect(echo.body == "to the network")
                #expect(server.requestsReceived == 1)
                try await (real as? AsyncHTTPClientAdapter)?.shutdown()
            }
        }
    }
}
