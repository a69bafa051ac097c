import Faraday
import FaradayTestSupport
import Foundation
import Testing

extension AdapterConformance {
    /// Issue 62: SOCKS5 with a user name and password through a server this project did not
    /// write: Debian's microsocks, which `.ci/run` installs and starts with `-u`/`-P`
    /// (`Scripts/start-microsocks.sh`). Skipped when `FARADAY_MICROSOCKS` is not set (a plain
    /// `swift test`).
    @Suite(
        .timeLimit(.minutes(1)),
        .enabled(if: ProcessInfo.processInfo.environment["FARADAY_MICROSOCKS"] != nil, "microsocks runs in .ci/run")
    )
    struct MicrosocksTests {
        private static func options(password: String?) throws -> RequestOptions {
            let environment = ProcessInfo.processInfo.environment
            let address = try #require(environment["FARADAY_MICROSOCKS"]?.split(separator: ":"))
            let credentials = try #require(environment["FARADAY_MICROSOCKS_CREDENTIALS"]?.split(separator: ":"))
            var options = RequestOptions()
            options.proxy = ProxyConfiguration(
                all: .socks5(
                    host: String(address[0]),
                    port: try #require(Int(address[1])),
                    username: String(credentials[0]),
                    password: password ?? String(credentials[1])
                )
            )
            return options
        }

        @Test func httpAndHTTPSGoThroughMicrosocksWithCredentials() async throws {
            let certificates = try TestCertificates.generate()
            for tls in [nil, certificates] {
                try await withConnection(.nio, tls: tls, trust: tls, options: Self.options(password: nil)) {
                    connection,
                    _ in
                    let echo = try await connection.get("echo").echo
                    #expect(echo.path == "/echo")
                }
            }
        }

        @Test func wrongCredentialsAreATypedErrorWithoutThePassword() async throws {
            try await withConnection(.nio, options: Self.options(password: "not-the-password")) { connection, server in
                let error = await #expect(throws: FaradayError.self) { try await connection.get("echo").value }
                #expect(error?.code == .proxyAuthenticationRequired, "\(String(describing: error))")
                #expect(!"\(String(describing: error))".contains("not-the-password"))
                #expect(server.requestsReceived == 0)
            }
        }
    }
}
