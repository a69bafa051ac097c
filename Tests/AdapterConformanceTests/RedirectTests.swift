import Faraday
import FaradayTestSupport
import Foundation
import Testing

extension AdapterConformance {
    @Suite(.timeLimit(.minutes(2))) struct RedirectTests {
        @Test(arguments: AdapterKind.allCases)
        func eachStatusTreatsMethodAndBodyAsItShould(_ kind: AdapterKind) async throws {
            try await withConnection(kind, handlers: [FollowRedirects.Handler()]) { connection, _ in
                for (status, method, body) in [
                    (301, "GET", ""), (302, "GET", ""), (303, "GET", ""), (307, "POST", "payload"),
                    (308, "POST", "payload"),
                ] {
                    let env = try await connection.post("redirect/\(status)?to=/echo", body: .text("payload")).value
                    let echo = try JSONDecoder().decode(Echo.self, from: env.body)
                    #expect(echo.method == method, "\(status)")
                    #expect(echo.body == body, "\(status)")
                    #expect(env.redirects.map(\.status) == [status])
                    #expect(env.redirects.first?.to.path == "/echo")
                }
            }
        }

        /// Issue 45: a 3xx without `Location` is an answer to hand back (and to cache), not a bad
        /// response. FoundationNetworking drops its body (the Adapters article says so).
        @Test(arguments: AdapterKind.allCases, [false, true])
        func aRedirectStatusWithoutLocationIsDelivered(_ kind: AdapterKind, _ streamed: Bool) async throws {
            try await withConnection(kind, handlers: [FollowRedirects.Handler()]) { connection, _ in
                for status in [301, 302, 303, 307, 308] {
                    var last: Env?
                    var body = Data()
                    for try await env in connection.get(
                        "redirect/\(status)?nolocation=1",
                        streaming: streamed ? .chunks : nil
                    ).completions {
                        body.append(env.body)
                        last = env
                    }
                    let env = try #require(last)
                    #expect(env.status?.code == status)
                    #expect(env.responseHeaders[.location] == nil)
                    #expect(env.redirects.isEmpty)
                    if kind.isOnNIO {
                        #expect(String(decoding: body, as: UTF8.self) == "redirecting")
                    }
                }
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func standardsCompliantModeKeepsPOSTOn301And302(_ kind: AdapterKind) async throws {
            try await withConnection(kind, handlers: [FollowRedirects.Handler(standardsCompliant: true)]) {
                connection,
                _ in
                for status in [301, 302] {
                    let echo = try await connection.post("redirect/\(status)?to=/echo", body: .text("kept")).echo
                    #expect(echo.method == "POST" && echo.body == "kept")
                }
                let headEcho = try await connection.head("redirect/303?to=/echo").value
                #expect(headEcho.status?.code == 200)
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func credentialsAreStrippedAcrossOriginsAndKeptWithin(_ kind: AdapterKind) async throws {
            let other = try await TestServer.start()
            let secrets: HTTPFields = [
                .authorization: "Bearer t", .cookie: "sid=1", .proxyAuthorization: "Basic p", .accept: "text/plain",
            ]
            try await withConnection(kind, handlers: [FollowRedirects.Handler()]) { connection, server in
                let elsewhere = other.baseURL.appendingPathComponent("echo").absoluteString
                let crossed = try await connection.get(
                    "redirect/302",
                    params: ["to": .string(elsewhere)],
                    headers: secrets
                ).echo
                #expect(
                    crossed.values("authorization").isEmpty && crossed.values("cookie").isEmpty
                        && crossed.values("proxy-authorization").isEmpty
                )
                #expect(crossed.values("accept") == ["text/plain"])

                let schemeRelative = "//127.0.0.1:\(server.baseURL.port ?? 0)/echo"
                let relative = try await connection.get(
                    "redirect/302",
                    params: ["to": .string(schemeRelative)],
                    headers: secrets
                ).echo
                #expect(relative.values("authorization").isEmpty, "a scheme-relative Location counts as a change")

                let same = try await connection.get("redirect/307?to=/echo", headers: secrets).echo
                #expect(same.values("authorization") == ["Bearer t"])
                #expect(same.values("cookie") == ["sid=1"])
            }
            try await other.shutdown()
        }

        // URLSession on Linux cannot trust the test CA, so the HTTPS side runs on AsyncHTTPClient.
        @Test func anHTTPSToHTTPRedirectIsRefusedUnlessAllowed() async throws {
            let certificates = try TestCertificates.generate()
            let plain = try await TestServer.start()
            let target = plain.baseURL.appendingPathComponent("echo").absoluteString
            try await withConnection(
                .asyncHTTPClient,
                tls: certificates,
                trust: certificates,
                handlers: [FollowRedirects.Handler()]
            ) { connection, _ in
                await #expect {
                    try await connection.get("redirect/302", params: ["to": .string(target)]).value
                } throws: { error in
                    (error as? FaradayError)?.code == .insecureRedirect
                }
            }
            try await withConnection(
                .asyncHTTPClient,
                tls: certificates,
                trust: certificates,
                handlers: [FollowRedirects.Handler(allowsInsecureRedirects: true)]
            ) { connection, _ in
                let env = try await connection.get("redirect/302", params: ["to": .string(target)]).value
                #expect(env.request.url.scheme == "http")
                #expect(env.redirects.count == 1)
            }
            try await plain.shutdown()
        }

        @Test(arguments: AdapterKind.allCases)
        func loopsAndLongChainsStop(_ kind: AdapterKind) async throws {
            try await withConnection(kind, handlers: [FollowRedirects.Handler(limit: 2)]) { connection, _ in
                await #expect {
                    try await connection.get("loop").value
                } throws: { error in
                    (error as? FaradayError)?.code == .redirectLoop
                }
                let third = "/redirect/302?to=/echo"
                let second =
                    "/redirect/302?to=" + (third.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
                await #expect {
                    try await connection.get("redirect/302", params: ["to": .string(second)]).value
                } throws: { error in
                    guard let error = error as? FaradayError, error.code == .tooManyRedirects else { return false }
                    return error.message.contains("/redirect/302") && error.message.contains("→")
                }
            }
        }
    }
}
