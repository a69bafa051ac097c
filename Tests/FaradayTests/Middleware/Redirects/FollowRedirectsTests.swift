import Faraday
import Foundation
import Testing

@Suite(.timeLimit(.minutes(1))) struct FollowRedirectsTests {
    @Test func httpsToHTTPIsRefusedUnlessAllowed() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/x") { _, _ in StubResponse(status: .found, headers: [.location: "http://api.example.com/plain"])
        }
        stubs.get("http://api.example.com/plain") { _, _ in StubResponse(body: "plain") }
        await #expect {
            try await makeConnection([FollowRedirects.Handler()], adapter: stubs).get("x").value
        } throws: { error in
            (error as? FaradayError)?.code == .insecureRedirect
        }
        let allowed = try makeConnection([FollowRedirects.Handler(allowsInsecureRedirects: true)], adapter: stubs)
        #expect(try await allowed.get("x").value.response?.text == "plain")
    }

    @Test func cookiesOfEveryHopReachTheJarBelow() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/a") { _, _ in
            StubResponse(status: .found, headers: [.location: "/v1/b", .setCookie: "hop=1; Path=/"])
        }
        stubs.get("/v1/b", headers: [.cookie: "hop=1"]) { _, _ in StubResponse(body: "b") }
        let jar = CookieJar()
        let connection = try makeConnection([FollowRedirects.Handler(), Cookies.Handler(jar: jar)], adapter: stubs)
        let env = try await connection.get("a").value
        #expect(env.response?.text == "b")
        #expect(jar.allCookies.map(\.name) == ["hop"])
    }

    @Test(arguments: ["", "ftp://example.com/x", "http://"])
    func anInvalidLocationIsAnInvalidResponse(_ location: String) async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/x") { _, _ in StubResponse(status: .movedPermanently, headers: [.location: location]) }
        await #expect {
            try await makeConnection([FollowRedirects.Handler()], adapter: stubs).get("x").value
        } throws: { error in
            (error as? FaradayError)?.code == .invalidResponse
        }
    }

    @Test func aRedirectWithoutLocationIsTheResponse() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/x") { _, _ in StubResponse(status: .found, body: "no location") }
        #expect(try await makeConnection([FollowRedirects.Handler()], adapter: stubs).get("x").value.status == .found)
    }

    @Test func a307WithAOneShotBodyFails() async throws {
        let stubs = TestAdapter()
        stubs.post("/v1/x") { _, _ in StubResponse(status: .temporaryRedirect, headers: [.location: "/v1/y"]) }
        let body = RequestBody.stream(
            AsyncStream {
                $0.yield(Data("x".utf8))
                $0.finish()
            }
        )
        await #expect {
            try await makeConnection([FollowRedirects.Handler()], adapter: stubs).post("x", body: body).value
        } throws: { error in
            (error as? FaradayError)?.code == .bodyNotReplayable
        }
    }

    @Test func credentialsBelowFollowRedirectsStayOffOnceTheChainLeavesTheOrigin() async throws {
        let stubs = TestAdapter()
        let seen = Recorder()
        stubs.get("https://api.example.com/v1/start") { env, _ in
            seen.record("start \(env.request.headers[.authorization] ?? "none")")
            return StubResponse(status: .found, headers: [.location: "https://cdn.example.net/x"])
        }
        stubs.get("https://cdn.example.net/x") { env, _ in
            seen.record("cdn \(env.request.headers[.authorization] ?? "none")")
            return StubResponse(status: .found, headers: [.location: "https://api.example.com/v1/back"])
        }
        stubs.get("https://api.example.com/v1/back") { env, _ in
            seen.record("back \(env.request.headers[.authorization] ?? "none")")
            return StubResponse(body: "ok")
        }
        let connection = try makeConnection(
            [FollowRedirects.Handler(), Authorization.Handler(.bearer("t0k3n"))],
            adapter: stubs
        )
        _ = try await connection.get("start").value
        #expect(seen.log == ["start Bearer t0k3n", "cdn none", "back none"])
    }
}
