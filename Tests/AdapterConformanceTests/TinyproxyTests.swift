import Faraday
import FaradayTestSupport
import Foundation
import Testing

extension AdapterConformance {
    /// One end-to-end check through a proxy this project did not write: Debian's tinyproxy, which
    /// `.ci/run` installs and starts (`Scripts/start-tinyproxy.sh`), with Basic credentials.
    /// Skipped when `FARADAY_TINYPROXY` is not set (a plain `swift test`).
    @Suite(
        .timeLimit(.minutes(1)),
        .enabled(if: ProcessInfo.processInfo.environment["FARADAY_TINYPROXY"] != nil, "tinyproxy runs in .ci/run")
    )
    struct TinyproxyTests {
        private static func options(password: String?) throws -> RequestOptions {
            let environment = ProcessInfo.processInfo.environment
            let address = try #require(environment["FARADAY_TINYPROXY"]?.split(separator: ":"))
            let credentials = try #require(environment["FARADAY_TINYPROXY_CREDENTIALS"]?.split(separator: ":"))
            var options = RequestOptions()
            options.proxy = ProxyConfiguration(
                all: .http(
                    host: String(address[0]),
                    port: try #require(Int(address[1])),
                    username: String(credentials[0]),
                    password: password ?? String(credentials[1])
                )
            )
            return options
        }

        @Test(arguments: AdapterKind.onNIO)
        func httpAndHTTPSGoThroughTinyproxyWithCredentials(_ kind: AdapterKind) async throws {
            let certificates = try TestCertificates.generate()
            for tls in [nil, certificates] {
                try await withConnection(kind, tls: tls, trust: tls, options: Self.options(password: nil)) {
                    connection,
                    _ in
                    let echo = try await connection.get("echo").echo
                    #expect(echo.path == "/echo")
                    #expect(echo.value("proxy-authorization") == nil, "the origin never sees the proxy's credentials")
                }
            }
        }

        /// tinyproxy 1.11 answers a `CONNECT` with wrong credentials with 401 and `WWW-Authenticate`,
        /// not 407 (as squid and `TestProxy` do); AsyncHTTPClient reports any answer but 2xx and
        /// 407 without its status, so this is a refused tunnel, not a typed 407.
        @Test(arguments: AdapterKind.onNIO)
        func wrongCredentialsAreRefusedByTinyproxy(_ kind: AdapterKind) async throws {
            try await withConnection(kind, options: Self.options(password: "wrong")) { connection, server in
                let error = await #expect(throws: FaradayError.self) { try await connection.get("echo").value }
                #expect(error?.code == .connectionFailed)
                #expect(error?.message.contains("refused to open a tunnel") == true)
                #expect(server.requestsReceived == 0)
            }
        }
    }
}
