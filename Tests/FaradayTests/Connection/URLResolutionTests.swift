import Foundation
import Testing

@testable import Faraday

@Suite(.timeLimit(.minutes(1))) struct URLResolutionTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let base: String
        let path: String
        let expected: String
        var resolution = PathResolution.underBasePath
        var testDescription: String { "\(base) + \(path)" }
    }

    static let cases: [Case] = [
        Case(base: "https://api.example.com/v1", path: "users", expected: "https://api.example.com/v1/users"),
        Case(base: "https://api.example.com/v1/", path: "users", expected: "https://api.example.com/v1/users"),
        Case(base: "https://api.example.com/v1", path: "/users", expected: "https://api.example.com/v1/users"),
        Case(base: "https://api.example.com/v1/", path: "/users", expected: "https://api.example.com/v1/users"),
        Case(base: "https://api.example.com/v1", path: "", expected: "https://api.example.com/v1"),
        Case(base: "https://api.example.com", path: "users", expected: "https://api.example.com/users"),
        Case(base: "https://api.example.com", path: "", expected: "https://api.example.com"),
        Case(base: "https://api.example.com/v1", path: "users/1/", expected: "https://api.example.com/v1/users/1/"),
        Case(
            base: "https://api.example.com/v1",
            path: "/status",
            expected: "https://api.example.com/status",
            resolution: .hostAbsolute
        ),
        Case(
            base: "https://api.example.com/v1",
            path: "status",
            expected: "https://api.example.com/v1/status",
            resolution: .hostAbsolute
        ),
        Case(base: "https://api.example.com/v1", path: "https://other.example/x", expected: "https://other.example/x"),
        Case(base: "https://api.example.com:8443/v1", path: "a", expected: "https://api.example.com:8443/v1/a"),
        Case(
            base: "https://api.example.com/v1",
            path: "users?page=2",
            expected: "https://api.example.com/v1/users?page=2"
        ),
        Case(base: "https://api.example.com/v1", path: "john doe", expected: "https://api.example.com/v1/john%20doe"),
        Case(base: "https://api.example.com/v1", path: "a%2Fb", expected: "https://api.example.com/v1/a%2Fb"),
        Case(base: "https://api.example.com/v1", path: "100%", expected: "https://api.example.com/v1/100%25"),
        Case(base: "https://api.example.com/v1", path: "caf\u{E9}", expected: "https://api.example.com/v1/caf%C3%A9"),
        Case(base: "https://api.example.com/v1", path: "x#fragment", expected: "https://api.example.com/v1/x"),
        Case(
            base: "https://api.example.com/v1",
            path: "a\r\nInjected: 1",
            expected: "https://api.example.com/v1/a%0D%0AInjected:%201"
        ),
    ]

    @Test(arguments: cases)
    func resolves(_ testCase: Case) async throws {
        let stubs = TestAdapter()
        let connection = try makeConnection(url: testCase.base, adapter: stubs)
        _ = try? await connection.run(method: .get, testCase.path, resolution: testCase.resolution).value
        #expect(stubs.calls.first?.url.absoluteString == testCase.expected)
    }

    /// A connection remembers the paths it resolved (``ResolvedPaths``): asked again, each gives
    /// the URL it gave the first time, whatever was asked in between.
    @Test func aPathAskedAgainResolvesAsTheFirstTime() async throws {
        for (base, cases) in Dictionary(grouping: Self.cases, by: \.base) {
            let stubs = TestAdapter()
            let connection = try makeConnection(url: base, adapter: stubs)
            for _ in 0..<3 {
                for testCase in cases {
                    _ = try? await connection.run(method: .get, testCase.path, resolution: testCase.resolution).value
                }
            }
            let expected = Array(repeating: cases.map(\.expected), count: 3).flatMap { $0 }
            #expect(stubs.calls.map(\.url.absoluteString) == expected, "\(base)")
        }
    }

    /// The same text resolves apart under each resolution, and by its bytes: a decomposed `é` is
    /// not the precomposed one.
    @Test func theSamePathUnderAnotherResolutionOrOtherBytesIsNotTheSameURL() async throws {
        let stubs = TestAdapter()
        let connection = try makeConnection(url: "https://api.example.com/v1", adapter: stubs)
        for _ in 0..<2 {
            _ = try? await connection.run(method: .get, "/status", resolution: .hostAbsolute).value
            _ = try? await connection.run(method: .get, "/status").value
            _ = try? await connection.get("caf\u{E9}").value
            _ = try? await connection.get("cafe\u{301}").value
        }
        let once = [
            "https://api.example.com/status", "https://api.example.com/v1/status",
            "https://api.example.com/v1/caf%C3%A9", "https://api.example.com/v1/cafe%CC%81",
        ]
        #expect(stubs.calls.map(\.url.absoluteString) == once + once)
    }

    /// More paths than are remembered, then the first ones again; and a new base URL.
    @Test func manyPathsAndANewBaseURLStillResolveRight() async throws {
        let stubs = TestAdapter()
        let connection = try makeConnection(url: "https://api.example.com/v1", adapter: stubs)
        let paths = (0..<150).map { "items/\($0)?page=\($0 % 3)" }
        for path in paths + paths.prefix(10) { _ = try? await connection.get(path).value }
        #expect(
            stubs.calls.map(\.url.absoluteString)
                == (paths + paths.prefix(10)).map { "https://api.example.com/v1/\($0)" }
        )
        connection.url = URL(string: "https://api.example.com/v2")
        _ = try? await connection.get(paths[0]).value
        #expect(stubs.calls.last?.url.absoluteString == "https://api.example.com/v2/items/0?page=0")
    }

    @Test(arguments: ["//evil.example/steal", "//evil.example", "ftp://files.example/x", "https://"])
    func refusesPathsThatWouldSwitchHostOrScheme(_ path: String) async throws {
        let stubs = TestAdapter()
        let connection = try makeConnection(adapter: stubs)
        // Asked twice: a refused path is refused again, never remembered.
        for _ in 0..<2 {
            await #expect {
                try await connection.get(path).value
            } throws: { error in
                (error as? FaradayError)?.code == .invalidURL
            }
        }
        #expect(stubs.calls.isEmpty)
    }

    /// A path's query is not remembered (it may carry a credential, and changes from call to
    /// call), nor is a long path, nor one that is not ASCII (its text could equal another's with
    /// other bytes); a short path is, once.
    @Test func theMemoryOfPathsKeepsNoQueryAndNoLongPath() throws {
        let paths = ResolvedPaths()
        let url = try #require(URL(string: "https://api.example.com/v1/items"))
        paths.remember(url, for: "items?api_key=secret", .underBasePath)
        paths.remember(url, for: String(repeating: "a/", count: 200), .underBasePath)
        paths.remember(url, for: "items", .underBasePath)
        paths.remember(url, for: "caf\u{e9}", .underBasePath)
        #expect(paths.url(for: "caf\u{e9}", .underBasePath) == nil)
        #expect(paths.url(for: "cafe\u{301}", .underBasePath) == nil)
        #expect(paths.url(for: "items?api_key=secret", .underBasePath) == nil)
        #expect(paths.url(for: String(repeating: "a/", count: 200), .underBasePath) == nil)
        #expect(paths.url(for: "items", .underBasePath) == url)
        #expect(paths.url(for: "items", .hostAbsolute) == nil)
    }

    @Test func aRelativePathWithoutABaseURLIsAnError() async throws {
        let stubs = TestAdapter()
        let connection = Connection { $0.adapter = stubs }
        await #expect {
            try await connection.get("users").value
        } throws: { error in
            (error as? FaradayError)?.code == .invalidURL
        }
        #expect(stubs.calls.isEmpty)
    }

    @Test(arguments: ["not a url", "mailto:a@b.c", "https://", "/relative"])
    func invalidBaseURLsAreRefused(_ base: String) {
        #expect {
            try Connection(url: base)
        } throws: { error in
            (error as? FaradayError)?.code == .invalidURL
        }
    }

    @Test func connectionParamsMergeUnderRequestParams() async throws {
        let stubs = TestAdapter()
        let connection = try Connection(url: "https://api.example.com", params: ["token": "abc", "page": "1"]) {
            $0.adapter = stubs
        }
        _ = try? await connection.get("items?page=2&sort=name", params: ["limit": "10"]).value
        let url = try #require(stubs.calls.first?.url)
        let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.query
        #expect(query == "token=abc&page=2&sort=name&limit=10")
    }

    @Test func aBuilderClosureChangesTheQuery() async throws {
        let stubs = TestAdapter()
        stubs.stub(.post, .path("/v1/greetings"), query: ["hello": "world"], body: .equals("hi")) { _, _ in
            StubResponse(status: .created)
        }
        let connection = try makeConnection(adapter: stubs)
        let env = try await connection.post("greetings") { request in
            request.setQuery(values: ["world"], forName: "hello")
            request.body = .text("hi")
        }.value
        #expect(env.status == .created)
    }

    @Test func invalidMethodTokensFailBeforeSending() async throws {
        let stubs = TestAdapter()
        let connection = try makeConnection(adapter: stubs)
        for token in ["GE T", "", "GET\r\n", "PÜT"] {
            await #expect {
                try await connection.run(method: token, "x").value
            } throws: { error in
                (error as? FaradayError)?.code == .invalidMethod
            }
        }
        #expect(stubs.calls.isEmpty)
    }
}
