import Faraday
import FaradayTestSupport
import Foundation
import Testing

extension AdapterConformance {
    @Suite(.timeLimit(.minutes(2))) struct SessionTests {
        @Test(arguments: AdapterKind.allCases)
        func aLoginCookieCarriesTheSession(_ kind: AdapterKind) async throws {
            let jar = CookieJar()
            try await withConnection(kind, handlers: [Cookies.Handler(jar: jar)]) { connection, _ in
                #expect(try await connection.get("session").value.status?.code == 401)
                _ = try await connection.post("login", headers: [.init("X-User")!: "ada"]).value
                #expect(Set(jar.allCookies.map(\.name)) == ["session", "theme"])
                // One Cookie header with both cookies, oldest first, whatever the adapter.
                let cookie = try await connection.get("session").value.response?.text ?? ""
                #expect(cookie == "session=s-ada; theme=dark")
                // A cookie the request sets itself goes first, in the same header.
                let own = try await connection.get("session", headers: [.cookie: "lang=en"]).value.response?.text
                #expect(own == "lang=en; session=s-ada; theme=dark")
                connection.reset()
                #expect(try await connection.get("session").value.status?.code == 401)
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func a401IsRefreshedThroughTheSameConnectionAndRetried(_ kind: AdapterKind) async throws {
            struct TokenReply: Decodable {
                let access_token: String
                let expires_in: Int
            }
            let box = Locked<Connection?>(nil)
            let store = CredentialStore(credential: OAuthCredential(accessToken: "stale-token", refreshToken: "r1")) {
                old in
                guard let connection = box.withLock({ $0 }) else { throw CancellationError() }
                let reply = try await connection.post(
                    "oauth/token",
                    body: .form([
                        "grant_type": "refresh_token", "refresh_token": .string(old.refreshToken ?? ""),
                    ])
                ).decode(TokenReply.self)
                return OAuthCredential(
                    accessToken: reply.access_token,
                    refreshToken: "r2",
                    expiresIn: .seconds(reply.expires_in)
                )
            }
            try await withConnection(kind, handlers: [URLEncoded.Handler(), TokenRefresh.Handler(store: store)]) {
                connection,
                server in
                box.withLock { $0 = connection }
                // The store's refresh holds the connection through the box: let go of it at the end.
                defer { box.withLock { $0 = nil } }
                let env = try await connection.get("protected").value
                #expect(env.status?.code == 200)
                #expect(env.response?.text == "secret data")
                #expect(store.refreshCount == 1)
                #expect(store.credential?.accessToken == "fresh-token")
                // stale attempt, the refresh, and the retry
                #expect(server.requestsReceived == 3)
            }
        }
    }
}
