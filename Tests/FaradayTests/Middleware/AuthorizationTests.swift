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
