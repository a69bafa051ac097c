import Faraday
import FaradayAsyncHTTPClient
import FaradayTestSupport
import Foundation
import Testing

extension AdapterConformance {
    /// Requests through a real proxy (`TestProxy`, which answers as squid or tinyproxy do).
    /// AsyncHTTPClientAdapter tunnels every URL with `CONNECT` (plain `http://` too) or goes
    /// through SOCKS5; URLSessionAdapter refuses a proxy before sending anything (FoundationNetworking
    /// never reads its proxy settings).
    @Suite(.timeLimit(.minutes(1))) struct ProxyTests {
        /// Runs `body` with a proxy, shut down afterwards whatever happens.
        private func withProxy(
            credentials: (String, String)? = nil,
            kind: TestProxy.Kind = .http,
            _ body: (TestProxy) async throws -> Void
        ) async throws {
            let proxy = try await TestProxy.start(credentials: credentials, kind: kind)
            do {
                try await body(proxy)
            } catch {
                try await proxy.shutdown()
                throw error
            }
            try await proxy.shutdown()
        }

        private func options(
            _ proxy: TestProxy,
            user: String? = nil,
            password: String? = nil,
            noProxy: NoProxy = NoProxy()
        )
            -> RequestOptions
        {
            var options = RequestOptions()
            options.proxy = ProxyConfiguration(
                all: .http(host: "127.0.0.1", port: proxy.port, username: user, password: password),
                noProxy: noProxy
            )
            return options
        }

        @Test(arguments: AdapterKind.onNIO)
        func httpsGoesThroughATunnelWithTLSEndToEnd(_ kind: AdapterKind) async throws {
            let certificates = try TestCertificates.generate()
            try await withProxy { proxy in
                try await withConnection(
                    kind,
                    tls: certificates,
                    trust: certificates,
                    options: options(proxy)
                ) {
                    connection,
                    server in
                    let echo = try await connection.get("echo").echo
                    #expect(echo.path == "/echo")
                    #expect(proxy.requests.map(\.method) == ["CONNECT"] && proxy.requests.first?.status == 200)
                    #expect(proxy.requests.first?.target.hasSuffix(":\(server.port)") == true)
                }
            }
        }

        @Test(arguments: AdapterKind.onNIO)
        func plainHTTPIsTunnelledTooAndCredentialsGoToTheProxyOnly(_ kind: AdapterKind) async throws {
            try await withProxy(credentials: ("me", "s3cret")) { proxy in
                try await withConnection(kind, options: options(proxy, user: "me", password: "s3cret")) {
                    connection,
                    _ in
                    let echo = try await connection.get("echo").echo
                    #expect(echo.value("proxy-authorization") == nil, "the origin never sees the proxy's credentials")
                    _ = try await connection.get("echo").value  // the tunnel is reused
                    let seen = try #require(proxy.requests.first)
                    #expect(seen.method == "CONNECT" && seen.status == 200)
                    #expect(seen.proxyAuthorization == "Basic " + Data("me:s3cret".utf8).base64EncodedString())
                }
            }
        }

        @Test(arguments: AdapterKind.onNIO)
        func a407IsATypedError(_ kind: AdapterKind) async throws {
            try await withProxy(credentials: ("me", "s3cret")) { proxy in
                try await withConnection(kind, options: options(proxy, user: "me", password: "wrong")) {
                    connection,
                    server in
                    await #expect {
                        try await connection.get("echo").value
                    } throws: { error in
                        let error = error as? FaradayError
                        return error?.code == .proxyAuthenticationRequired && error?.message.contains("wrong") == false
                    }
                    #expect(server.requestsReceived == 0)
                    #expect(proxy.requests.map(\.status) == [407])
                }
            }
        }

        @Test(arguments: AdapterKind.onNIO, [false, true])
        func socks5TunnelsHTTPAndHTTPS(_ kind: AdapterKind, _ overTLS: Bool) async throws {
            let certificates = overTLS ? try TestCertificates.generate() : nil
            try await withProxy(kind: .socks5) { proxy in
                var options = RequestOptions()
                options.proxy = ProxyConfiguration(all: .socks5(host: "127.0.0.1", port: proxy.port))
                try await withConnection(kind, tls: certificates, trust: certificates, options: options) {
                    connection,
                    server in
                    let echo = try await connection.get("echo").echo
                    #expect(echo.path == "/echo")
                    let seen = try #require(proxy.requests.first)
                    #expect(seen.method == "SOCKS5" && seen.status == 0 && seen.target.hasSuffix(":\(server.port)"))
                }
            }
        }

        /// An origin at an IPv6 literal (`http://[::1]:PORT`), through `CONNECT` and through
        /// SOCKS5: the `CONNECT` authority keeps its brackets (`CONNECT [::1]:PORT`), SOCKS5 sends
        /// an IPv6 address (a name has no such form), and the origin sees `Host: [::1]:PORT`.
        @Test(arguments: AdapterKind.onNIO, [TestProxy.Kind.http, .socks5])
        func anIPv6OriginIsReachedThroughAProxy(_ kind: AdapterKind, _ proxyKind: TestProxy.Kind) async throws {
            try await withProxy(kind: proxyKind) { proxy in
                var options = RequestOptions()
                options.proxy = ProxyConfiguration(
                    all: proxyKind == .http
                        ? .http(host: "127.0.0.1", port: proxy.port) : .socks5(host: "127.0.0.1", port: proxy.port)
                )
                try await withConnection(kind, options: options, host: "::1") { connection, server in
                    #expect(server.baseURL.absoluteString == "http://[::1]:\(server.port)")
                    let echo = try await connection.get("echo").echo
                    #expect(echo.path == "/echo")
                    #expect(echo.value("host") == "[::1]:\(server.port)")
                    let seen = try #require(proxy.requests.first)
                    #expect(seen.target == "[::1]:\(server.port)", "an IPv6 address, not a name")
                    #expect(seen.status == (proxyKind == .http ? 200 : 0))
                }
            }
        }

        /// Through a tunnel, an IP-literal origin's certificate is checked against the origin's
        /// address, not the proxy's: a certificate naming `127.0.0.1` (the proxy's address) but
        /// not `::1` (the origin's) is refused, one naming `::1` is accepted. AsyncHTTPClient
        /// checks the proxy's address: AsyncHTTPClientAdapter refuses the request, unsent.
        @Test(arguments: AdapterKind.onNIO, [true, false])
        func anIPOriginsCertificateIsCheckedAgainstItsAddressThroughATunnel(
            _ kind: AdapterKind,
            _ namesTheOrigin: Bool
        ) async throws {
            let address = namesTheOrigin ? TestCertificates.ipv6Loopback : TestCertificates.ipv4Loopback
            let certificates = try TestCertificates.generate(ipAddresses: [address])
            let server = try await TestServer.start(tls: certificates, host: "::1")
            let adapter = try kind.makeAdapter(trusting: certificates)
            try await withProxy { proxy in
                let connection = try Connection(url: "https://[::1]:\(server.port)", options: options(proxy)) {
                    $0.adapter = adapter
                }
                if kind == .asyncHTTPClient {
                    await #expect { try await connection.get("echo").value } throws: {
                        isFaradayError($0, .unsupportedOption)
                    }
                    #expect(proxy.requests.isEmpty)
                } else {
                    try await expectTheCertificateCheck(passes: namesTheOrigin, connection, server)
                }
            }
            try await shutDown(adapter)
            try await server.shutdown()
        }

        /// Pins are checked against the origin's certificate at the end of the tunnel, as without
        /// a proxy: the right pin passes, a wrong one fails before a request reaches the origin.
        @Test(arguments: AdapterKind.onNIO, [true, false])
        func pinsAreCheckedEndToEndThroughATunnel(_ kind: AdapterKind, _ rightPin: Bool) async throws {
            let certificates = try TestCertificates.generate()
            let other = try TestCertificates.generate()
            let pinned = rightPin ? certificates : other
            let pin = CertificatePin.certificate(try TLSCertificate(der: pinned.serverCertificateDER))
            let pinning = CertificatePinning.Handler(PinningPolicy([.pin("localhost", [pin], scope: .leaf)]))
            try await withProxy { proxy in
                try await withConnection(
                    kind,
                    tls: certificates,
                    trust: certificates,
                    options: options(proxy),
                    handlers: [pinning]
                ) { connection, server in
                    try await expectTheCertificateCheck(passes: rightPin, connection, server)
                    #expect(proxy.requests.first?.method == "CONNECT")
                }
            }
        }

        /// A GET that passes the certificate check, or fails it (`tlsFailure`) before a request
        /// reaches the origin.
        private func expectTheCertificateCheck(
            passes: Bool,
            _ connection: Connection,
            _ server: TestServer
        ) async throws {
            if passes {
                let env = try await connection.get("echo").value
                #expect(env.status == .ok)
            } else {
                await #expect { try await connection.get("echo").value } throws: {
                    isFaradayError($0, .tlsFailure)
                }
                #expect(server.requestsReceived == 0)
            }
        }

        /// A client certificate reaches the origin through the tunnel; without one the origin refuses.
        @Test(arguments: AdapterKind.onNIO, [true, false])
        func clientCertificatesGoEndToEndThroughATunnel(_ kind: AdapterKind, _ withIdentity: Bool) async throws {
            let certificates = try TestCertificates.generate()
            let identity = try ClientIdentity(
                certificatePEM: certificates.clientCertificatePEM,
                privateKeyPEM: certificates.clientKeyPEM
            )
            try await withProxy { proxy in
                let server = try await TestServer.start(tls: certificates, clientAuthentication: true)
                let adapter = try kind.makeAdapter()
                var options = options(proxy)
                options.tls = TLSOptions(
                    trustRoots: [try TLSCertificate(pem: certificates.caPEM)],
                    clientIdentity: withIdentity ? identity : nil
                )
                let connection = try Connection(url: server.baseURL.absoluteString, options: options) {
                    $0.adapter = adapter
                }
                let result: Result<Env, any Error>
                do {
                    result = .success(try await connection.get("echo").value)
                } catch {
                    result = .failure(error)
                }
                try await shutDown(adapter)
                try await server.shutdown()
                if withIdentity {
                    #expect(try result.get().status == .ok)
                } else {
                    #expect(throws: FaradayError.self) { try result.get() }
                    #expect(server.requestsReceived == 0)
                }
                #expect(proxy.requests.first?.method == "CONNECT")
            }
        }

        /// AsyncHTTPClient speaks SOCKS5 without authentication only: its adapter refuses
        /// credentials rather than drop them. NIOAdapter sends them (below).
        @Test(arguments: [AdapterKind.asyncHTTPClient])
        func socksCredentialsAreRefusedRatherThanDropped(_ kind: AdapterKind) async throws {
            var options = RequestOptions()
            options.proxy = ProxyConfiguration(all: .http(host: "127.0.0.1", port: 1))
            options.proxy?.https = nil
            options.proxy?.http?.kind = .socks5
            options.proxy?.http?.username = "me"
            try await withConnection(kind, options: options) { connection, server in
                await #expect { try await connection.get("echo").value } throws: {
                    isFaradayError($0, .unsupportedOption)
                }
                #expect(server.requestsReceived == 0)
            }
        }

        /// Issue 62: SOCKS5 with a user name and password (RFC 1929) on NIOAdapter, over plain HTTP
        /// and TLS to the origin, and a tunnel reused with them.
        @Test(arguments: [false, true])
        func nioAdapterSendsSOCKS5Credentials(_ overTLS: Bool) async throws {
            let certificates = overTLS ? try TestCertificates.generate() : nil
            try await withProxy(credentials: ("me", "s3cret"), kind: .socks5) { proxy in
                var options = RequestOptions()
                options.proxy = ProxyConfiguration(
                    all: .socks5(host: "127.0.0.1", port: proxy.port, username: "me", password: "s3cret")
                )
                try await withConnection(.nio, tls: certificates, trust: certificates, options: options) {
                    connection,
                    server in
                    let echo = try await connection.get("echo").echo
                    #expect(echo.path == "/echo")
                    _ = try await connection.get("echo").value
                    let seen = try #require(proxy.requests.first)
                    #expect(seen.method == "SOCKS5" && seen.status == 0 && seen.proxyAuthorization == "me")
                    #expect(seen.target.hasSuffix(":\(server.port)"))
                }
            }
        }

        /// Wrong credentials, or none where the proxy wants some: a typed error naming the proxy,
        /// never the password, and nothing reaches the origin.
        @Test(arguments: [("me", "wrong"), nil] as [(String, String)?])
        func aSOCKS5ProxyThatRefusesTheCredentialsFailsTheCall(_ given: (String, String)?) async throws {
            try await withProxy(credentials: ("me", "s3cret"), kind: .socks5) { proxy in
                var options = RequestOptions()
                options.proxy = ProxyConfiguration(
                    all: .socks5(host: "127.0.0.1", port: proxy.port, username: given?.0, password: given?.1)
                )
                try await withConnection(.nio, options: options) { connection, server in
                    let error = await #expect(throws: FaradayError.self) { try await connection.get("echo").value }
                    #expect(error?.code == .proxyAuthenticationRequired, "\(String(describing: error))")
                    #expect(error?.message.contains("127.0.0.1:\(proxy.port)") == true)
                    #expect(!"\(String(describing: error))".contains("wrong"), "the password is never printed")
                    #expect(server.requestsReceived == 0)
                }
            }
        }

        /// Issue 44: a proxy the environment names that an adapter cannot use (TLS to the proxy,
        /// SOCKS4, SOCKS5 with credentials on AsyncHTTPClientAdapter) fails the call naming the
        /// variable; before, it was dropped and the request went direct.
        @Test(
            arguments: AdapterKind.allCases,
            [
                ("http_proxy", "https://127.0.0.1:1"), ("all_proxy", "socks5h://me:secret@127.0.0.1:1"),
                ("http_proxy", "socks4a://127.0.0.1:1"), ("http_proxy", "ftp://127.0.0.1:1"),
                ("all_proxy", "http://127.0.0.1:70000"),
            ]
        )
        func aProxyTheEnvironmentNamesIsNeverSkipped(_ kind: AdapterKind, _ variable: (String, String)) async throws {
            // NIOAdapter speaks SOCKS5 with credentials: it tries that proxy (port 1: refused).
            if kind == .nio, variable.1.hasPrefix("socks5h://me:") { return }
            var options = RequestOptions()
            let configuration = try #require(ProxyConfiguration.fromEnvironment([variable.0: variable.1]))
            options.proxy = configuration
            try await withConnection(kind, options: options) { connection, server in
                await #expect { try await connection.get("echo").value } throws: { error in
                    guard let error = error as? FaradayError, error.code == .unsupportedOption else { return false }
                    return error.message.contains("named by \(variable.0)") && !error.message.contains("secret")
                }
                #expect(server.requestsReceived == 0, "the request went direct")
            }
        }

        @Test(arguments: AdapterKind.onNIO)
        func noProxyHostsGoDirect(_ kind: AdapterKind) async throws {
            try await withProxy { proxy in
                try await withConnection(kind, options: options(proxy, noProxy: "127.0.0.1")) {
                    connection,
                    server in
                    _ = try await connection.get("echo").value
                    #expect(proxy.requests.isEmpty && server.requestsReceived == 1)
                }
            }
        }

        @Test func urlSessionRefusesAProxyBeforeSending() async throws {
            try await withProxy { proxy in
                try await withConnection(.urlSession, options: options(proxy)) { connection, server in
                    await #expect {
                        try await connection.get("echo").value
                    } throws: { error in
                        isFaradayError(error, .unsupportedOption)
                    }
                    #expect(proxy.requests.isEmpty && server.requestsReceived == 0)
                }
            }
        }
    }
}
