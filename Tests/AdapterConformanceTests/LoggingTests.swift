import Faraday
import FaradayTestSupport
import Foundation
import InMemoryLogging
import Logging
import Testing

extension AdapterConformance {
    /// HTTPLogger's lines are the same on every adapter, and the adapter's own lines (AsyncHTTPClient's)
    /// carry the call's metadata.
    @Suite(.timeLimit(.minutes(1))) struct LoggingTests {
        @Test(arguments: AdapterKind.allCases)
        func eventsCarryTheSameMetadataOnEveryAdapter(_ kind: AdapterKind) async throws {
            let logs = InMemoryLogHandler()
            var logger = Logger(label: "wire") { _ in logs }
            logger.logLevel = .trace
            let handlers: [any Handler] = [
                // X-User carries the test's secret on the way out; the server puts it in a cookie.
                HTTPLogger.Handler(
                    logger: logger,
                    level: .info,
                    redaction: Redaction(headers: Redaction.credentialHeaders + ["x-user"])
                ),
                FollowRedirects.Handler(),
                Retry.Handler(backoff: .none, statuses: [503], sleep: { _ in }),
            ]
            try await withConnection(kind, handlers: handlers) { connection, server in
                let target = "/flaky?key=logging-\(kind.rawValue)&failures=1"
                let reply = try await connection.get("redirect/302", params: ["to": .string(target)]).value
                #expect(reply.response?.status == .ok)
                let ours = logs.entries.filter { $0.level == .info }
                #expect(ours.map { "\($0.message)".prefix(1) } == ["→", "←"])
                let response = try #require(ours.last?.metadata)
                #expect(response["http.response.status_code"] == "200")
                #expect(response["faraday.attempt"] == "2")
                #expect(response["faraday.redirect.hop"] == "1")
                #expect("\(response["url.full"] ?? "")".hasPrefix("\(server.baseURL.absoluteString)/redirect/302?to="))
                let id = try #require(response["faraday.call.id"])
                if kind == .asyncHTTPClient {
                    // AsyncHTTPClient's own lines about the requests (each attempt and hop): the
                    // delegate API's name the request, the async API's (bodiless calls) its connection.
                    let own = logs.entries.filter {
                        $0.metadata["ahc-request-id"] != nil || $0.metadata["ahc-connection-id"] != nil
                    }
                    #expect(!own.isEmpty)
                    #expect(own.allSatisfy { $0.metadata["faraday.call.id"] == id }, "\(own.map(\.metadata))")
                }
                // A secret in a response head (a session cookie) reaches no line, AsyncHTTPClient's
                // included (its `.trace` lines print heads as they are).
                _ = try await connection.post("login") { $0.headers[.init("X-User")!] = "SECRET42" }.value
                let everything = logs.entries.map { "\($0.message) \($0.metadata)" }.joined(separator: "\n")
                #expect(!everything.contains("SECRET42"))
            }
        }
    }
}
