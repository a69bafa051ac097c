import Foundation
import InMemoryLogging
import Logging
import Testing

@testable import Faraday

@Suite(.timeLimit(.minutes(1))) struct HTTPLoggerTests {
    private func capture(
        _ configure: (inout HTTPLogger.Handler) -> Void = { _ in },
        adapter stubs: TestAdapter
    ) throws -> (Connection, InMemoryLogHandler) {
        let logs = InMemoryLogHandler()
        var handler = HTTPLogger.Handler(logger: Logger(label: "test") { _ in logs })
        configure(&handler)
        return (try makeConnection([handler], adapter: stubs), logs)
    }

    private func text(_ logs: InMemoryLogHandler) -> String {
        logs.entries.map { "\($0.level) \($0.message) \($0.metadata)" }.joined(separator: "\n")
    }

    @Test func eachEventIsOneLineWithItsMetadata() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/users") { _, _ in
            StubResponse(status: .ok, headers: [.contentType: "application/json"], body: "[]")
        }
        let (connection, logs) = try capture(adapter: stubs)
        _ = try await connection.get("users", params: ["page": "2"]).value
        let lines = logs.entries.map { "\($0.message)" }
        try #require(lines.count == 2)
        #expect(lines[0] == "→ GET https://api.example.com/v1/users?page=2")
        #expect(lines[1].hasPrefix("← 200 OK GET https://api.example.com/v1/users?page=2 ("))
        #expect(lines[1].hasSuffix(" ms)"))
        let (request, response) = (logs.entries[0].metadata, logs.entries[1].metadata)
        for metadata in [request, response] {
            #expect(metadata["http.request.method"] == "GET")
            #expect(metadata["url.full"] == "https://api.example.com/v1/users?page=2")
            #expect(metadata["faraday.call.id"] != nil)
        }
        #expect(request["faraday.call.id"] == response["faraday.call.id"])
        guard case .dictionary(let sent)? = request["http.request.header"],
            case .dictionary(let received)? = response["http.response.header"]
        else {
            Issue.record("headers are not a dictionary: \(request) \(response)")
            return
        }
        #expect(sent["user-agent"].map { "\($0)".hasPrefix("Faraday/") } == true)
        #expect(received["content-type"] == "application/json")
        #expect(response["http.response.status_code"] == "200")
        #expect(response["http.response.body.size"] == "2")
        #expect(response["http.response.body"] == nil, "bodies are not logged at the headers level")
        #expect(response["http.client.request.duration"].flatMap { Double("\($0)") } != nil)
        #expect(response["faraday.attempt"] == nil && response["faraday.redirect.hop"] == nil)
    }

    @Test func callsAreToldApartByTheirID() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/x") { _, _ in StubResponse() }
        let (connection, logs) = try capture(adapter: stubs)
        _ = try await connection.get("x").value
        _ = try await connection.get("x").value
        let ids = logs.entries.compactMap { $0.metadata["faraday.call.id"].map { "\($0)" } }
        #expect(ids.count == 4)
        #expect(ids[0] == ids[1] && ids[2] == ids[3] && ids[0] != ids[2])
    }

    /// Below Retry and FollowRedirects each request line says which attempt and hop it is; above
    /// them the response line says which attempt and hop answered.
    @Test(arguments: [true, false])
    func attemptsAndRedirectHopsAreInTheMetadata(_ loggerBelow: Bool) async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/old") { _, _ in StubResponse(status: .found, headers: [.location: "/v1/new"]) }
        let calls = Locked(0)
        stubs.get("/v1/new") { _, _ in
            StubResponse(status: calls.increment() == 1 ? .serviceUnavailable : .ok)
        }
        let logs = InMemoryLogHandler()
        let logger = HTTPLogger.Handler(logger: Logger(label: "test") { _ in logs })
        let redirects = FollowRedirects.Handler()
        let retry = Retry.Handler(backoff: .none, statuses: [503], sleep: { _ in })
        let connection = try makeConnection(
            loggerBelow ? [redirects, retry, logger] : [logger, redirects, retry],
            adapter: stubs
        )
        _ = try await connection.get("old").value
        let entries = logs.entries
        func position(_ entry: InMemoryLogHandler.Entry) -> String {
            "\(entry.metadata["faraday.attempt"].map { "\($0)" } ?? "-")/\(entry.metadata["faraday.redirect.hop"].map { "\($0)" } ?? "-")"
        }
        if loggerBelow {
            let requests = entries.filter { "\($0.message)".hasPrefix("→") }
            #expect(requests.map(position) == ["1/-", "1/1", "2/1"])
            let ids = Set(entries.map { "\($0.metadata["faraday.call.id"] ?? "")" })
            #expect(ids.count == 1, "every attempt and hop of the call has its number: \(ids)")
            #expect(requests.map { "\($0.metadata["url.full"] ?? "")" }.last == "https://api.example.com/v1/new")
        } else {
            #expect(entries.count == 2)
            #expect(entries.last.map(position) == "2/1")
            #expect(entries.last?.metadata["http.response.status_code"] == "200")
        }
    }

    @Test func theCallsLoggerWithItsMetadataGoesDownToTheAdapter() async throws {
        let stubs = TestAdapter()
        let handed = Locked<Logger.Metadata?>(nil)
        stubs.get("/v1/x") { env, _ in
            handed.withLock { $0 = env.logger.map { logger in logger.handler.metadata } }
            return StubResponse()
        }
        let (connection, logs) = try capture(adapter: stubs)
        _ = try await connection.get("x").value
        let metadata = try #require(handed.withLock { $0 })
        #expect(metadata["faraday.call.id"] == logs.entries.first?.metadata["faraday.call.id"])
        #expect(metadata["url.full"] == "https://api.example.com/v1/x")
    }

    @Test func theURLLevelLogsOneLineEachWay() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/x") { _, _ in StubResponse(headers: [.contentType: "text/plain"], body: "hi") }
        let (connection, logs) = try capture(
            {
                $0.request = .url
                $0.response = .url
            },
            adapter: stubs
        )
        _ = try await connection.get("x").value
        #expect(logs.entries.allSatisfy { !"\($0.message)".contains("\n") })
    }

    @Test func noSecretReachesAnyLineOrTheCurlCommand() async throws {
        let secrets = [
            "s3cr3t-token", "c00kie", "setc00kie", "qs3cret", "pw-secret", "k3y", "formsecret", "custom-secret",
            "sig-value", "ssn-value", "proxy-pass", "userinfo-pass",
        ]
        let stubs = TestAdapter()
        stubs.post("/v1/login") { _, _ in
            StubResponse(
                headers: [.setCookie: "sid=setc00kie; HttpOnly", .contentType: "application/json"],
                body: #"{"access_token":"s3cr3t-token","user":"ada","profile":{"ssn":"ssn-value"}}"#
            )
        }
        stubs.post("/v1/form") { _, _ in StubResponse() }
        let (connection, logs) = try capture(
            { handler in
                handler.request = .bodies
                handler.response = .bodies
                handler.logsCurl = true
                handler.redaction.headers.append("x-api-*")
                handler.redaction.queryKeys.append("sig")
                handler.redaction.bodyFields.append("ssn")
            },
            adapter: stubs
        )
        _ = try await connection.post("login", params: ["access_token": "qs3cret", "sig": "sig-value", "page": "2"]) {
            request in
            request.headers.bearer("s3cr3t-token")
            request.headers[.cookie] = "sid=c00kie"
            request.headers[.proxyAuthorization] = "Basic proxy-pass"
            request.headers[.init("X-Api-Key")!] = "custom-secret"
            request.headers[.contentType] = "application/json"
            request.body = .text(#"{"user":"ada","password":"pw-secret","nested":[{"api_key":"k3y"}]}"#)
        }.value
        _ = try await connection.post("form") { request in
            request.headers[.contentType] = "application/x-www-form-urlencoded"
            request.body = .text("user=ada&password=formsecret&remember=1")
        }.value
        var request = Request(method: .get, url: try #require(URL(string: "https://ada:userinfo-pass@example.com/")))
        request.headers.bearer("s3cr3t-token")
        let everything = text(logs) + request.curlCommand()
        for secret in secrets { #expect(!everything.contains(secret), "\(secret) leaked") }
        #expect(everything.contains("ada"))
        #expect(everything.contains("page=2"))
        #expect(everything.contains("remember=1"))
        #expect(everything.contains(Redaction.placeholder))
        #expect(everything.contains("curl -X POST 'https://api.example.com/v1/login?"))
    }

    @Test func longBodiesAreCutAndBinaryBodiesSummarised() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/long") { _, _ in
            StubResponse(headers: [.contentType: "text/plain"], body: String(repeating: "a", count: 100))
        }
        stubs.get("/v1/png") { _, _ in
            StubResponse(headers: [.contentType: "image/png"], body: Data([0x89, 0x50, 0x00, 0xFF]))
        }
        let (connection, logs) = try capture(
            {
                $0.response = .bodies
                $0.bodyLimit = 10
            },
            adapter: stubs
        )
        _ = try await connection.get("long").value
        _ = try await connection.get("png").value
        let all = text(logs)
        #expect(all.contains("aaaaaaaaaa… (90 more bytes)"))
        #expect(all.contains("(binary body, 4 bytes, image/png)"))
    }

    @Test func aStreamIsLoggedPerChunkWithoutItsContent() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/s") { _, _ in StubResponse(body: ResponseBody(pieces: [Data("abc".utf8), Data("defgh".utf8)])) }
        let (connection, logs) = try capture({ $0.response = .bodies }, adapter: stubs)
        for try await _ in connection.get("s", configure: { $0.options.streaming = .chunks }).completions {}
        #expect(!logs.entries.contains { "\($0.message)".hasPrefix("← chunk") }, "chunks are .debug lines")
        let (debugConnection, debugLogs) = try capture(
            {
                $0.response = .bodies
                $0.logger.logLevel = .debug
            },
            adapter: stubs
        )
        for try await _ in debugConnection.get("s", configure: { $0.options.streaming = .chunks }).completions {}
        let lines = debugLogs.entries.map { "\($0.message)" }
        #expect(lines.contains("← chunk 0: 3 bytes"))
        #expect(lines.contains("← chunk 1: 5 bytes"))
        #expect(
            debugLogs.entries.filter { $0.level == .debug }.map { $0.metadata["faraday.stream.chunk.size"] } == [
                "3", "5",
            ]
        )
        let end = try #require(debugLogs.entries.last)
        #expect("\(end.message)".hasPrefix("← end of stream GET https://api.example.com/v1/s: 8 bytes in 2 chunks ("))
        #expect(end.metadata["http.response.body.size"] == "8" && end.metadata["faraday.stream.chunks"] == "2")
        #expect(!text(debugLogs).contains("abc"))
    }

    @Test func failuresAreLoggedAsErrors() async throws {
        let stubs = TestAdapter()
        let (connection, logs) = try capture(adapter: stubs)
        _ = try? await connection.get("missing").value
        let failure = try #require(logs.entries.last)
        #expect(failure.level == .error)
        #expect("\(failure.message)".contains("✗ GET https://api.example.com/v1/missing failed after"))
        #expect("\(failure.message)".contains("noStubMatched"))
        #expect(failure.metadata["error.type"] == "noStubMatched")
        #expect(failure.metadata["faraday.call.id"] == logs.entries.first?.metadata["faraday.call.id"])
    }

    @Test(arguments: [
        "https://example.com/?a[b]=1&token=x#frag", "https://example.com/?%ZZ=1&=&&token",
        "https://u:p%40ss@example.com:8080/p?q",
    ])
    func oddURLsAreRedactedWithoutCrashing(_ string: String) throws {
        let text = Redaction().redacting(try #require(URL(string: string)))
        #expect(!text.contains("token=x") && !text.contains("p%40ss"))
    }

    @Test func theCurlCommandQuotesForTheShell() throws {
        var request = Request(method: .post, url: try #require(URL(string: "https://example.com/a")))
        request.headers[.contentType] = "text/plain"
        request.body = .text("it's here")
        #expect(
            request.curlCommand()
                == #"curl -X POST 'https://example.com/a' -H 'Content-Type: text/plain' --data-raw 'it'\''s here'"#
        )
        request.body = .stream(length: 5) { AsyncStream<Data> { $0.finish() } }
        #expect(request.curlCommand().hasSuffix("# streamed body of 5 bytes left out"))
    }
}
