import Faraday
import Foundation
import HTTPTypes
import Testing

@Suite(.timeLimit(.minutes(1))) struct TestAdapterTests {
    @Test func matchesByFullURLIncludingHost() async throws {
        let stubs = TestAdapter()
        stubs.get("https://api.example.com/v1/a") { _, _ in StubResponse(body: "api") }
        stubs.get("https://other.example/v1/a") { _, _ in StubResponse(body: "other") }
        let connection = try makeConnection(adapter: stubs)
        #expect(try await connection.get("a").value.response?.text == "api")
        #expect(try await connection.get("https://other.example/v1/a").value.response?.text == "other")
    }

    /// A stub's path is compared with the request's as `URL.path` reads it: percent-decoded, and
    /// without a trailing `/`.
    @Test(arguments: [
        ("/v1/caf%C3%A9", "café"), ("/v1/a%20b", "a b"), ("/v1/items/", "items"),
        ("/v1/x%2Fy", "x/y"), ("/v1/plain", "plain"),
    ])
    func aStubPathMatchesTheDecodedPathWithoutItsTrailingSlash(requested: String, stubbed: String) async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/" + stubbed) { _, _ in StubResponse(body: "matched") }
        let connection = try makeConnection(adapter: stubs)
        let env = try await connection.get(String(requested.dropFirst(4))).value
        #expect(env.response?.text == "matched")
    }

    @Test func regexStubsPassTheirCaptures() async throws {
        let stubs = TestAdapter()
        stubs.stub(.get, .regex(#"/v1/users/(\d+)/posts/(\w+)"#)) { _, match in
            StubResponse(body: match.captures.compactMap { $0 }.joined(separator: ","))
        }
        let env = try await makeConnection(adapter: stubs).get("users/42/posts/hello").value
        #expect(env.response?.text == "42,hello")
    }

    @Test func queryIsASubsetUnlessStrict() async throws {
        let lenient = TestAdapter()
        lenient.get("/v1/search", query: ["q": "swift"]) { _, _ in StubResponse(body: "found") }
        let connection = try makeConnection(adapter: lenient)
        #expect(
            try await connection.get("search", params: ["q": "swift", "page": "2"]).value.response?.text == "found"
        )

        let strict = TestAdapter(strictMode: true)
        strict.get("/v1/search", query: ["q": "swift"]) { _, _ in StubResponse(body: "found") }
        let strictConnection = try makeConnection(adapter: strict)
        #expect(try await strictConnection.get("search", params: ["q": "swift"]).value.response?.text == "found")
        await #expect(throws: FaradayError.self) {
            try await strictConnection.get("search", params: ["q": "swift", "page": "2"]).value
        }
    }

    @Test func headersAndBodiesMatch() async throws {
        let stubs = TestAdapter()
        let key = HTTPField.Name("X-Api-Key")!
        stubs.stub(.post, .path("/v1/items"), headers: [key: "k1"], body: .matching { $0.count == 3 }) { _, _ in
            StubResponse(status: .created)
        }
        let connection = try makeConnection(adapter: stubs)
        #expect(try await connection.post("items", headers: [key: "k1"], body: .text("abc")).value.status == .created)
        await #expect(throws: FaradayError.self) {
            try await connection.post("items", headers: [key: "k2"], body: .text("abc")).value
        }
        await #expect(throws: FaradayError.self) {
            try await connection.post("items", headers: [key: "k1"], body: .text("abcd")).value
        }
    }

    @Test func stubsAreConsumedInOrderThenTheLastRepeats() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/n") { _, _ in StubResponse(body: "1") }
        stubs.get("/v1/n") { _, _ in StubResponse(body: "2") }
        let connection = try makeConnection(adapter: stubs)
        var bodies: [String] = []
        for _ in 0..<3 { bodies.append(try await connection.get("n").value.response?.text ?? "") }
        #expect(bodies == ["1", "2", "2"])
        try stubs.verifyStubbedCalls()
    }

    @Test func verifyStubbedCallsNamesTheUnusedStubs() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/used") { _, _ in StubResponse() }
        stubs.stub(.delete, .path("/v1/never"), response: StubResponse())
        _ = try await makeConnection(adapter: stubs).get("used").value
        #expect {
            try stubs.verifyStubbedCalls()
        } throws: { error in
            (error as? FaradayError)?.message.contains("DELETE /v1/never") == true
        }
    }

    @Test func anUnmatchedRequestNamesTheClosestStubs() async throws {
        let stubs = TestAdapter()
        stubs.stub(.post, .path("/v1/items"), response: StubResponse())
        stubs.get("/v1/other") { _, _ in StubResponse() }
        await #expect {
            try await makeConnection(adapter: stubs).get("items").value
        } throws: { error in
            guard let error = error as? FaradayError, error.code == .noStubMatched else { return false }
            return error.message.contains("No stub for GET https://api.example.com/v1/items")
                && error.message.contains(
                    "Closest: POST /v1/items (differs in method: the stub expects POST, the request sent GET)"
                )
        }
    }

    /// The mismatch message shows both sides: what the stub expects and what the request sent.
    @Test func aMismatchShowsWhatTheStubExpectsAndWhatTheRequestSent() async throws {
        let stubs = TestAdapter()
        stubs.stub(.get, .path("/v1/me"), headers: [.authorization: "Bearer good"], response: StubResponse())
        stubs.stub(.get, .path("/v1/items"), query: ["page": "2"], response: StubResponse())
        stubs.stub(.post, .path("/v1/items"), body: .equals("{}"), response: StubResponse())
        let connection = try makeConnection(adapter: stubs)
        let cases: [(Response, String)] = [
            (
                connection.get("me", headers: [.authorization: "Bearer bad"]),
                // As the Testing article shows it.
                #"Closest: GET /v1/me headers: Authorization=Bearer good (differs in header Authorization: the stub expects "Bearer good", the request sent "Bearer bad")"#
            ),
            (connection.get("me"), #"header Authorization: the stub expects "Bearer good", the request sent none"#),
            (connection.get("items", params: ["page": "3"]), "query: the stub expects page=2, the request sent page=3"),
            (connection.post("items", body: .text("[]")), #"body: the stub expects "{}", the request sent "[]""#),
        ]
        for (response, expected) in cases {
            await #expect {
                try await response.value
            } throws: { error in
                guard let error = error as? FaradayError, error.code == .noStubMatched else { return false }
                return error.message.contains(expected)
            }
        }
    }

    @Test func concurrentUseMatchesEveryResponseToItsRequest() async throws {
        let stubs = TestAdapter()
        stubs.stub(.get, .regex(#"/v1/echo/(\d+)"#)) { _, match in StubResponse(body: match.captures[0] ?? "") }
        let connection = try makeConnection(adapter: stubs)
        try await withThrowingTaskGroup(of: (Int, String?).self) { group in
            for index in 0..<500 {
                group.addTask { (index, try await connection.get("echo/\(index)").value.response?.text) }
            }
            var seen = Set<Int>()
            for try await (index, body) in group {
                #expect(body == "\(index)")
                seen.insert(index)
            }
            #expect(seen.count == 500)
        }
        #expect(stubs.calls.count == 500)
    }

    @Test func aResponderCanSimulateATransportError() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/x") { _, _ in throw FaradayError(.readTimeout, "slow") }
        await #expect {
            try await makeConnection(adapter: stubs).get("x").value
        } throws: { error in
            (error as? FaradayError)?.isTimeout == true
        }
    }

    @Test func bufferedBodiesRespectTheLimit() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/big") { _, _ in StubResponse(body: Data(count: 2048)) }
        let connection = try makeConnection(adapter: stubs)
        await #expect {
            try await connection.get("big") { $0.options.maxBufferedBodySize = 1024 }.value
        } throws: { error in
            (error as? FaradayError)?.code == .bodyTooLarge
        }
        // Streaming is how a large body is read: frames are not buffered.
        let frames = try await connection.get("big") {
            $0.options.maxBufferedBodySize = 1024
            $0.options.streaming = .chunks
        }.value
        #expect(frames.isFinal)
    }
}
