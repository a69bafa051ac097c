import Faraday
import Foundation
import Testing

@Suite(.timeLimit(.minutes(1))) struct AuthorizationTests {
    @Test(arguments: [
        (AuthenticationProvider.basic(login: "ada", password: "pässwörd"), "Basic YWRhOnDDpHNzd8O2cmQ="),
        (.token("abc", options: ["scope": "re\"ad"]), #"Token token="abc", scope="re\"ad""#),
        (.bearer("t0k"), "Bearer t0k"),
    ])
    func eachSchemeSetsItsHeader(_ provider: AuthenticationProvider, _ expected: String) async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/me", headers: [.authorization: expected]) { _, _ in StubResponse() }
        _ = try await makeConnection([Authorization.Handler(provider)], adapter: stubs).get("me").value
    }

    @Test func aClosureComputesTheHeaderPerRequest() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/a", headers: [.authorization: "Sig /v1/a"]) { _, _ in StubResponse() }
        stubs.get("/v1/b", headers: [.authorization: "Sig /v1/b"]) { _, _ in StubResponse() }
        let provider = AuthenticationProvider.custom { request in
            try await Task.sleep(for: .milliseconds(1))  // fetched asynchronously
            request.headers[.authorization] = "Sig \(request.url.path)"
        }
        let connection = try makeConnection([Authorization.Handler(provider)], adapter: stubs)
        _ = try await connection.get("a").value
        _ = try await connection.get("b").value
    }

    @Test func aRequestsOwnHeaderIsKept() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/me", headers: [.authorization: "Bearer mine"]) { _, _ in StubResponse() }
        let connection = try makeConnection([Authorization.Handler(.bearer("connection"))], adapter: stubs)
        _ = try await connection.get("me") { $0.headers.bearer("mine") }.value
    }

    @Test func aFailingProviderFailsTheCallBeforeSending() async throws {
        struct Locked: Error {}
        let stubs = TestAdapter()
        stubs.get("/v1/me") { _, _ in StubResponse() }
        let connection = try makeConnection([Authorization.Handler(.custom { _ in throw Locked() })], adapter: stubs)
        await #expect {
            try await connection.get("me").value
        } throws: { error in
            (error as? FaradayError)?.underlying is Locked
        }
        #expect(stubs.calls.isEmpty)
    }
}

/// The connection's credentials stay on its origin, whatever adds them.
@Suite(.timeLimit(.minutes(1))) struct CredentialOriginRuleTests {
    private func connection(_ handlers: [any Handler], _ stubs: TestAdapter) throws -> Connection {
        var headers = HTTPFields()
        headers[.authorization] = "Bearer default"
        headers[.cookie] = "sid=1"
        headers[.accept] = "application/json"
        return try Connection(url: "https://api.example.com/v1", headers: headers) { builder in
            for handler in handlers { builder.use(handler) }
            builder.adapter = stubs
        }
    }

    @Test(arguments: ["https://evil.example/x", "http://api.example.com/v1/x", "https://api.example.com:8443/v1/x"])
    func defaultCredentialHeadersStayOnTheConnectionsOrigin(_ target: String) throws {
        let connection = try connection([], TestAdapter())
        let elsewhere = try connection.makeRequest(method: .get, target)
        #expect(elsewhere.headers[.authorization] == nil && elsewhere.headers[.cookie] == nil)
        #expect(elsewhere.headers[.accept] == "application/json")
        let home = try connection.makeRequest(method: .get, "x")
        #expect(home.headers[.authorization] == "Bearer default" && home.headers[.cookie] == "sid=1")
        let given = try connection.makeRequest(method: .get, target, headers: [.authorization: "Bearer mine"])
        #expect(given.headers[.authorization] == "Bearer mine")
        connection.options.credentialOrigins = [target]
        #expect(try connection.makeRequest(method: .get, target).headers[.authorization] == "Bearer default")
    }

    @Test(arguments: [
        ("https://api.example.com:443", true), ("https://api.example.com", true),
        ("https://API.Example.com:443", true), ("https://api.example.com:4430", false),
        ("https://api.example.com:44", false), ("https://api.example.com:443x", false),
        ("https://api.example.com.:443", false), ("http://api.example.com:443", false),
        ("https://api.example.co:443", false), ("", false),
    ])
    func anOriginEntryIsComparedAsAnOrigin(_ entry: String, _ matches: Bool) {
        var request = Request(method: .get, url: URL(string: "https://api.example.com/v1/x")!)
        request.options.credentialOrigins = [entry]
        #expect(request.isToCredentialOrigin == matches)
    }

    @Test func aNewBaseURLMovesTheConnectionsOrigin() throws {
        let connection = try connection([], TestAdapter())
        connection.url = URL(string: "https://other.example/v2")
        let home = try connection.makeRequest(method: .get, "x")
        #expect(home.options.credentialOrigins == ["https://other.example:443"])
        #expect(home.headers[.authorization] == "Bearer default")
        let old = try connection.makeRequest(method: .get, "https://api.example.com/v1/x")
        #expect(old.headers[.authorization] == nil)
    }

    @Test func defaultCredentialParamsStayOnTheConnectionsOrigin() throws {
        let connection = try Connection(url: "https://api.example.com/v1", params: ["api_key": "k3y", "v": "2"])
        let home = try connection.makeRequest(method: .get, "x")
        #expect(home.url.query?.contains("api_key=k3y") == true)
        let elsewhere = try connection.makeRequest(method: .get, "https://evil.example/x")
        #expect(elsewhere.url.query == "v=2")
    }

    /// A path moved to another origin after the defaults were applied (`request.path = "https://…"`
    /// keeps the query) leaves the connection's credential parameters behind; the others stay.
    @Test func aPathMovedToAnotherOriginLeavesTheCredentialParamsBehind() async throws {
        let stubs = TestAdapter()
        stubs.get("https://evil.example/x") { env, _ in StubResponse(body: env.request.url.query ?? "") }
        stubs.get("https://api.example.com/v1/x") { env, _ in StubResponse(body: env.request.url.query ?? "") }
        let connection = try Connection(url: "https://api.example.com/v1", params: ["api_key": "k3y", "v": "2"]) {
            $0.adapter = stubs
        }
        let moved = try await connection.get("x") { $0.path = "https://evil.example/x" }.value
        #expect(moved.response?.text == "v=2")
        let home = try await connection.get("x") { $0.path = "x" }.value
        #expect(home.response?.text?.contains("api_key=k3y") == true)
    }

    /// Credential origins narrowed in `configure` to leave out the connection's own origin count
    /// when the call starts: the request was to a credential origin when it was made, not now.
    @Test func credentialOriginsNarrowedInConfigureLeaveTheCredentialsBehind() async throws {
        let stubs = TestAdapter()
        stubs.get("https://api.example.com/v1/x") { env, _ in
            StubResponse(body: "\(env.request.headers[.authorization] ?? "none") \(env.request.url.query ?? "")")
        }
        let connection = try Connection(url: "https://api.example.com/v1", params: ["api_key": "k3y", "v": "2"]) {
            $0.use(Authorization.Handler(.bearer("t0k")))
            $0.adapter = stubs
        }
        let narrowed = try await connection.get("x") { $0.options.credentialOrigins = ["https://auth.example"] }.value
        #expect(narrowed.response?.text == "none v=2")
        let home = try await connection.get("x").value
        #expect(home.response?.text == "Bearer t0k api_key=k3y&v=2")
    }

    @Test func aRequestBuiltByHandIsBoundToTheConnectionsOriginToo() async throws {
        let stubs = TestAdapter()
        stubs.get("https://evil.example/x") { env, _ in
            StubResponse(body: env.request.headers[.authorization] ?? "none")
        }
        let connection = try makeConnection([Authorization.Handler(.bearer("t0k"))], adapter: stubs)
        let request = Request(method: .get, url: try #require(URL(string: "https://evil.example/x")))
        #expect(try await connection.run(request).value.response?.text == "none")
    }

    @Test func aRedirectToAnotherOriginDropsKeyHeadersToo() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/go") { _, _ in StubResponse(status: .found, headers: [.location: "https://evil.example/x"]) }
        stubs.get("https://evil.example/x") { env, _ in
            StubResponse(body: env.request.headers[HTTPField.Name("X-Api-Key")!] ?? "none")
        }
        let connection = try makeConnection([FollowRedirects.Handler()], adapter: stubs)
        let env = try await connection.get("go") { $0.headers[HTTPField.Name("X-Api-Key")!] = "k3y" }.value
        #expect(env.response?.text == "none")
    }

    @Test func authorizationAndTokenRefreshAddNothingForAnotherOrigin() async throws {
        let stubs = TestAdapter()
        stubs.get("https://api.example.com/v1/me", headers: [.authorization: "Bearer t0k"]) { _, _ in StubResponse() }
        stubs.get("https://evil.example/x") { env, _ in
            StubResponse(body: env.request.headers[.authorization] ?? "none")
        }
        let store = CredentialStore(credential: OAuthCredential(accessToken: "t0k")) { _ in
            OAuthCredential(accessToken: "new")
        }
        for handler in [Authorization.Handler(.bearer("t0k")), TokenRefresh.Handler(store: store)] as [any Handler] {
            let connection = try makeConnection([handler], adapter: stubs)
            _ = try await connection.get("me").value
            #expect(try await connection.get("https://evil.example/x").value.response?.text == "none")
        }
    }

    @Test func anEndpointsAuthenticationStaysOnTheConnectionsOrigin() async throws {
        let stubs = TestAdapter()
        stubs.get("https://evil.example/x") { env, _ in
            StubResponse(body: env.request.headers[.authorization] ?? "none")
        }
        let api = API(connection: try makeConnection(adapter: stubs))
        let endpoint = Endpoint<String>(.get, "https://evil.example/x", decoder: .text)
            .authenticated(with: .bearer("t0k"))
        #expect(try await api.send(endpoint) == "none")
    }
}
