import Faraday
import FaradayTestSupport
import Foundation
import Testing

/// Several `Set-Cookie` fields in one answer, with every date format RFC 6265 reads and a
/// deletion, reach the jar whole on both adapters; and cookies come only from the `Cookies`
/// middleware, never from a store of the adapter's own.
extension AdapterConformance {
    @Suite(.timeLimit(.minutes(1))) struct CookieWireTests {
        @Test(arguments: AdapterKind.allCases)
        func everySetCookieFieldReachesTheJarWhole(_ kind: AdapterKind) async throws {
            let jar = CookieJar()
            try await withConnection(kind, handlers: [Cookies.Handler(jar: jar)]) { connection, _ in
                let set = try await connection.get("cookies/set").value
                #expect(set.responseHeaders[values: .setCookie] == ServerLikeRoutes.setCookies)
                let names = Set(jar.allCookies.map(\.name))
                #expect(names == ["fixdate", "rfc850", "asctime", "dashed"], "gone is deleted, the others live")
                // Each date read (2065), then capped at 400 days from now (RFC 6265bis).
                let capped = Date().addingTimeInterval(399 * 86_400)
                for cookie in jar.allCookies {
                    #expect(cookie.expiresAt.map { $0 > capped } == true, "\(cookie.name)")
                }
                let echo = try await connection.get("echo").echo
                #expect(
                    Set(
                        echo.values("cookie").flatMap { $0.split(separator: ";") }.map {
                            $0.trimmingCharacters(in: .whitespaces)
                        }
                    ) == ["fixdate=1", "rfc850=2", "asctime=3", "dashed=4"]
                )
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func withoutTheCookiesMiddlewareNoCookieIsSentBack(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, _ in
                _ = try await connection.post("login", headers: [HTTPField.Name("X-User")!: "ada"]).value
                _ = try await connection.get("cookies/set").value
                let echo = try await connection.get("echo").echo
                #expect(echo.values("cookie").isEmpty, "the adapter keeps no cookie store")
                #expect(try await connection.get("session").value.status == .unauthorized)
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func theAdapterCachesNothingOfItsOwn(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, _ in
                let key = UUID().uuidString
                let first = try await connection.get("cached?key=\(key)").value
                let second = try await connection.get("cached?key=\(key)").value
                #expect(first.response?.text == "request 1")
                #expect(second.response?.text == "request 2", "the second answer came from the server")
            }
        }
    }
}
