import Faraday
import FaradayTestSupport
import Foundation
import InMemoryLogging
import Logging
import Testing

extension AdapterConformance {
    /// Credentials never show where they should not: in log lines, error descriptions, cURL commands,
    /// or requests that a redirect sends to another origin.
    @Suite(.timeLimit(.minutes(2))) struct SecretsTests {
        /// Every secret of the test carries this marker, so one search finds any of them.
        private let marker = "SECRET"

        @Test(arguments: AdapterKind.allCases)
        func noSecretLeaksIntoLogsErrorsCurlOrAnotherOrigin(_ kind: AdapterKind) async throws {
            let logs = InMemoryLogHandler()
            var logger = Logger(label: "secrets") { _ in logs }
            logger.logLevel = .trace
            let jar = CookieJar()
            jar.store(setCookieHeaders: ["session=SECRET-cookie; Path=/"], from: URL(string: "http://127.0.0.1/")!)
            let handlers: [any Handler] = [
                HTTPLogger.Handler(logger: logger, level: .trace, request: .bodies, response: .headers, logsCurl: true),
                FollowRedirects.Handler(),
                RaiseError.Handler(),
                Authorization.Handler(.bearer("SECRET-token")),
                Cookies.Handler(jar: jar),
                URLEncoded.Handler(),
            ]
            try await withConnection(kind, handlers: handlers) { connection, server in
                var texts: [String] = []

                // A call that works, with credentials in the query and the form body.
                let login = try await connection.post(
                    "echo",
                    params: ["access_token": "SECRET-query", "page": "1"],
                    body: .form(["user": "ada", "password": "SECRET-password"])
                ).value
                #expect(login.response?.status == .ok)
                let sent = try login.response.map { try JSONDecoder().decode(JSON.self, from: $0.body) }
                // The credentials did reach the server: the test would prove nothing otherwise.
                #expect(sent?["body"]?.string?.contains("SECRET-password") == true)

                // Failures: a status error, and a URL with a password that cannot be reached.
                do {
                    _ = try await connection.get("status/401", params: ["token": "SECRET-query"]).value
                } catch {
                    texts.append(String(describing: error))
                    texts.append(error.localizedDescription)
                }
                do {
                    _ = try await connection.get("http://ada:SECRET-userinfo@127.0.0.1:1/x").value
                } catch {
                    texts.append(String(describing: error))
                }

                // A redirect to another origin (localhost instead of 127.0.0.1) sends neither the
                // token nor the cookie.
                let elsewhere = "http://localhost:\(server.port)/echo"
                let redirected = try await connection.get("redirect/302", params: ["to": .string(elsewhere)]).value
                let echoed = try JSONDecoder().decode(JSON.self, from: redirected.response?.body ?? Data())
                #expect(echoed["path"]?.string == "/echo")
                texts.append("\(echoed["headers"] ?? .null)")

                // cURL commands.
                var request = try connection.makeRequest(
                    method: .post,
                    "echo",
                    params: ["access_token": "SECRET-query"]
                )
                request.headers[.authorization] = "Bearer SECRET-token"
                request.headers[.cookie] = "session=SECRET-cookie"
                texts.append(request.curlCommand())

                texts += logs.entries.map { "\($0.message) \($0.metadata)" }
                #expect(logs.entries.count > 4)
                for text in texts {
                    #expect(!text.contains(marker), "a secret leaked: \(text)")
                }
            }
        }
    }
}
