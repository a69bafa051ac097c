import Faraday
import FaradayTestSupport
import Foundation
import Testing

extension AdapterConformance {
    /// Issue 66: a URL's host is percent-decoded before it is resolved and written in `Host`, so
    /// `%0d%0a` in it would add header lines or a whole request, and a name longer than DNS
    /// allows would crash a SOCKS5 handshake. Every adapter refuses such a host with `invalidURL`
    /// before sending anything, whichever way the URL came: a call, a redirect, a `Link`, a layer.
    @Suite(.timeLimit(.minutes(1))) struct HostileHostTests {
        /// A host that, decoded and written as it is, ends the `Host` line and sends a second
        /// request to the same server: getaddrinfo stops at the NUL, so it still connects to
        /// 127.0.0.1.
        static func injectingURL(port: Int) -> String {
            "http://127.0.0.1%00%0d%0a%0d%0aPOST%20%2Finternal%2Fadmin%2Fdelete-all%20HTTP%2F1.1%0d%0aX-Injected%3A%20yes:\(port)/echo"
        }

        /// A name of 300 bytes in labels of 50, and one with a label of 64.
        static let overlongHosts = [
            Array(repeating: String(repeating: "a", count: 50), count: 6).joined(separator: "."),
            String(repeating: "b", count: 64) + ".example",
        ]

        private func encoded(_ text: String) -> String {
            text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
        }

        private func expectInvalidURL(
            _ sourceLocation: SourceLocation = #_sourceLocation,
            _ body: () async throws -> Void
        ) async {
            let error = await #expect(throws: FaradayError.self, sourceLocation: sourceLocation) { try await body() }
            #expect(error?.code == .invalidURL, "\(String(describing: error))", sourceLocation: sourceLocation)
        }

        @Test(arguments: AdapterKind.allCases)
        func aRedirectToAHostThatInjectsARequestIsNotFollowed(_ kind: AdapterKind) async throws {
            try await withConnection(kind, handlers: [FollowRedirects.Handler()]) { connection, server in
                let location = Self.injectingURL(port: server.port)
                await expectInvalidURL { _ = try await connection.get("redirect/302?to=\(encoded(location))").value }
                #expect(server.requestsReceived == 1, "only the redirect itself reached the server")
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func aCallToAHostileHostSendsNothing(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, server in
                for url in [
                    Self.injectingURL(port: server.port), "http://evil%0d%0aX-Injected:%20yes/", "http://a%20b/",
                    "http://127.0.0.1%2Fx:\(server.port)/", "http://..:\(server.port)/",
                ] {
                    await expectInvalidURL { _ = try await connection.get(url).value }
                }
                #expect(server.requestsReceived == 0)
            }
        }

        /// A layer that sets the URL itself (a signing or routing middleware) is checked too: the
        /// stack's base refuses the host, whatever the adapter.
        @Test(arguments: AdapterKind.allCases)
        func aURLALayerMadeIsCheckedBeforeTheAdapter(_ kind: AdapterKind) async throws {
            let rerouted = LockedURL()
            try await withConnection(kind, handlers: [Reroute.Handler(to: rerouted)]) { connection, server in
                rerouted.url = URL(string: Self.injectingURL(port: server.port))
                await expectInvalidURL { _ = try await connection.get("echo").value }
                #expect(server.requestsReceived == 0)
            }
        }

        /// `Link` pages: the next page's host is checked before it is asked for.
        @Test(arguments: AdapterKind.allCases)
        func aNextPageOnAHostileHostIsRefused(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, server in
                var pages = 0
                await expectInvalidURL {
                    for try await _ in connection.pages("echo?next=\(encoded(Self.injectingURL(port: server.port)))") {
                        pages += 1
                    }
                }
                #expect(pages == 1)
                #expect(server.requestsReceived == 1)
            }
        }

        /// A name longer than DNS allows is refused before the SOCKS5 handshake, whose length
        /// byte it would overflow (before the fix, the process died in NIOSOCKS), and before a
        /// `CONNECT`.
        @Test(arguments: AdapterKind.onNIO, [TestProxy.Kind.socks5, .http])
        func anOverlongHostIsRefusedBeforeTheProxy(_ kind: AdapterKind, _ proxyKind: TestProxy.Kind) async throws {
            let proxy = try await TestProxy.start(kind: proxyKind)
            var options = RequestOptions()
            options.proxy = ProxyConfiguration(
                all: proxyKind == .http
                    ? .http(host: "127.0.0.1", port: proxy.port) : .socks5(host: "127.0.0.1", port: proxy.port)
            )
            try await withConnection(kind, options: options, handlers: [FollowRedirects.Handler()]) {
                connection,
                server in
                for host in Self.overlongHosts {
                    await expectInvalidURL {
                        _ = try await connection.get("redirect/302?to=\(encoded("http://\(host)/x"))").value
                    }
                    await expectInvalidURL { _ = try await connection.get("http://\(host)/x").value }
                }
                #expect(server.requestsReceived == Self.overlongHosts.count, "the redirects only")
                #expect(
                    !proxy.requests.isEmpty && proxy.requests.allSatisfy { $0.target.hasSuffix(":\(server.port)") },
                    "the tunnels to the server only"
                )
            }
            try await proxy.shutdown()
        }

        /// A request's own `Proxy-Authorization` is for a proxy: inside a tunnel it would reach the
        /// origin, so the adapter leaves it out there.
        @Test(arguments: AdapterKind.onNIO, [false, true])
        func aRequestsProxyAuthorizationNeverReachesTheOriginThroughATunnel(
            _ kind: AdapterKind,
            _ overTLS: Bool
        ) async throws {
            let certificates = overTLS ? try TestCertificates.generate() : nil
            let proxy = try await TestProxy.start(kind: .socks5)
            var options = RequestOptions()
            options.proxy = ProxyConfiguration(all: .socks5(host: "127.0.0.1", port: proxy.port))
            try await withConnection(kind, tls: certificates, trust: certificates, options: options) { connection, _ in
                let echo = try await connection.get("echo", headers: [.proxyAuthorization: "Basic U0VDUkVU"]).echo
                #expect(echo.path == "/echo")
                #expect(echo.value("proxy-authorization") == nil, "the origin received the proxy's credentials")
            }
            try await proxy.shutdown()
        }
    }
}

/// A layer that sends every call to the URL a test sets, when it set one.
private struct Reroute: Middleware {
    struct Handler: Faraday.Handler {
        let to: LockedURL

        func build(app: any App) -> any Middleware { Reroute(app: app, to: to) }
    }

    let app: any App
    let to: LockedURL

    func onRequest(_ env: inout Env) async throws {
        if let url = to.url { env.request.url = url }
    }
}

/// A URL one test sets and a layer reads.
private final class LockedURL: Sendable {
    private let box = Locked<URL?>(nil)

    var url: URL? {
        get { box.withLock { $0 } }
        set { box.withLock { $0 = newValue } }
    }
}
