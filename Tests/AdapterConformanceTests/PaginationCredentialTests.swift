import Faraday
import FaradayTestSupport
import Foundation
import Testing

extension AdapterConformance {
    /// A `Link` is the server's word: the call's own credentials go only to the origin of the first
    /// page, whichever adapter sends them (issue 44: before, the other host received them all).
    @Suite(.timeLimit(.minutes(2))) struct PaginationCredentialTests {
        static let credentials: HTTPFields = [
            .authorization: "Bearer SECRET-TOKEN", .cookie: "sid=SECRET-COOKIE",
            HTTPField.Name("X-Api-Key")!: "SECRET-KEY", .proxyAuthorization: "Basic U0VDUkVU",
        ]

        /// `A/echo` → `B/echo` → `A/echo?page=3`, as a collection that moves between hosts.
        private func chain(_ home: TestServer, _ elsewhere: TestServer) -> String {
            func encoded(_ text: String) -> String {
                text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
            }
            let third = home.baseURL.absoluteString + "/echo?page=3"
            let second = elsewhere.baseURL.absoluteString + "/echo?page=2&next=" + encoded(third)
            return "echo?page=1&next=" + encoded(second)
        }

        /// The names of the fields that carry a secret, lowercased.
        private func secrets(in echo: Echo) -> Set<String> {
            Set(echo.headers.compactMap { $0.count == 2 && $0[1].contains("SECRET") ? $0[0].lowercased() : nil })
        }

        private func page(_ echo: Echo) -> String? {
            URLComponents(string: echo.uri)?.queryItems?.first { $0.name == "page" }?.value
        }

        @Test(arguments: AdapterKind.allCases)
        func aPageOnAnotherOriginGetsNoneOfTheCallsCredentials(_ kind: AdapterKind) async throws {
            let elsewhere = try await TestServer.start()
            try await withConnection(kind) { connection, home in
                var pages: [Echo] = []
                for try await page in connection.pages(chain(home, elsewhere), headers: Self.credentials) {
                    pages.append(try page.decode(Echo.self))
                }
                #expect(pages.map(page) == ["1", "2", "3"])
                #expect(secrets(in: pages[0]).isSuperset(of: ["authorization", "cookie", "x-api-key"]))
                #expect(secrets(in: pages[1]) == [], "the other origin received \(secrets(in: pages[1]))")
                #expect(secrets(in: pages[2]) == secrets(in: pages[0]), "back on the first origin, they go again")
                #expect(elsewhere.requestsReceived == 1)
            }
            try await elsewhere.shutdown()
        }

        @Test(arguments: AdapterKind.allCases)
        func anEndpointsKeyAndAuthenticationStayOnItsOrigin(_ kind: AdapterKind) async throws {
            let elsewhere = try await TestServer.start()
            try await withConnection(kind) { connection, home in
                let api = API(connection: connection)
                var endpoint = Endpoint<Echo>(.get, chain(home, elsewhere), decoder: .json())
                endpoint.headers[HTTPField.Name("X-Api-Key")!] = "SECRET-KEY"
                endpoint.configure = { $0.headers[.cookie] = "sid=SECRET-COOKIE" }  // what `configure` sets too
                var pages: [Echo] = []
                for try await page in api.pages(of: endpoint.authenticated(with: .bearer("SECRET-TOKEN"))) {
                    pages.append(page)
                }
                #expect(pages.map(page) == ["1", "2", "3"])
                #expect(secrets(in: pages[0]) == ["authorization", "x-api-key", "cookie"])
                #expect(secrets(in: pages[1]) == [], "the other origin received \(secrets(in: pages[1]))")
                #expect(secrets(in: pages[2]) == ["authorization", "x-api-key", "cookie"])
            }
            try await elsewhere.shutdown()
        }
    }
}
