import Foundation
import Testing

@testable import Faraday

@Suite(.timeLimit(.minutes(1))) struct ProxyConfigurationTests {
    @Test(arguments: [
        // list, host, port, goes direct
        ("*", "anything.example", 443, true),
        ("", "example.com", 80, false),
        ("example.com", "example.com", 80, true),
        ("example.com", "api.example.com", 80, true),
        ("example.com", "notexample.com", 80, false),
        (".example.com", "example.com", 80, true),
        (".example.com", "a.b.example.com", 443, true),
        ("example.com.", "example.com", 80, true),
        ("EXAMPLE.com", "Api.Example.COM", 80, true),
        ("example.com", "example.com.", 80, true),
        ("  foo.test , example.com ,", "example.com", 80, true),
        ("foo.test,*", "example.com", 80, false),  // `*` only alone, as curl
        ("127.0.0.1", "127.0.0.1", 80, true),
        ("127.0.0.1", "127.0.0.2", 80, false),
        ("10.0.0.0/8", "10.200.3.4", 80, true),
        ("10.0.0.0/8", "11.0.0.1", 80, false),
        ("192.168.1.0/24", "192.168.1.77", 80, true),
        ("192.168.1.0/24", "192.168.2.1", 80, false),
        ("::1", "[::1]", 80, true),
        ("fd00::/8", "fd12:3456::1", 80, true),
        ("fd00::/8", "fe80::1", 80, false),
        ("example.com", "93.184.216.34", 80, false),  // names are not resolved
        ("127.0.0.1", "localhost", 80, false),
        ("example.com:8080", "example.com", 8080, true),
        ("example.com:8080", "example.com", 443, false),
        ("[::1]:8443", "::1", 8443, true),
        ("[::1]:8443", "::1", 443, false),
        ("10.0.0.0/33", "10.0.0.1", 80, false),  // an invalid entry matches nothing
        ("example.com:http", "example.com", 80, false),
        ("[fd00::]/8:443", "fd00::5", 443, true),
        ("[fd00::]/8:443", "fd00::5", 80, false),
        ("fe80::/10", "[fe80::1%25en0]", 80, true),
        ("example.com:70000", "example.com", 70000, false),
    ])
    func noProxyFollowsCurlsRules(_ list: String, _ host: String, _ port: Int, _ direct: Bool) {
        #expect(NoProxy(list).matches(host: host, port: port) == direct)
    }

    @Test func theEnvironmentIsReadAsCurlReadsIt() throws {
        let proxy = try #require(
            ProxyConfiguration.fromEnvironment([
                "http_proxy": "http://lower:3128", "HTTP_PROXY": "http://upper-ignored:1",
                "HTTPS_PROXY": "upper-https:8443", "ALL_PROXY": "socks5://all:1080", "NO_PROXY": "internal.example",
            ])
        )
        #expect(proxy.http == .http(host: "lower", port: 3128))
        #expect(proxy.https == .http(host: "upper-https", port: 8443))
        #expect(proxy.proxy(for: URL(string: "https://internal.example/x")!) == nil)
        #expect(proxy.proxy(for: URL(string: "https://public.example/x")!) == .http(host: "upper-https", port: 8443))

        // HTTP_PROXY alone is never read (a CGI program's request header); all_proxy fills in.
        let cgi = try #require(
            ProxyConfiguration.fromEnvironment(["HTTP_PROXY": "http://evil:1", "all_proxy": "socks5h://s:9"])
        )
        #expect(cgi.http == .socks5(host: "s", port: 9) && cgi.https == .socks5(host: "s", port: 9))
        #expect(ProxyConfiguration.fromEnvironment(["HTTP_PROXY": "http://evil:1"]) == nil)
        #expect(ProxyConfiguration.fromEnvironment(["http_proxy": "", "https_proxy": " "]) == nil)

        // Lower case wins; no_proxy before NO_PROXY.
        let both = try #require(
            ProxyConfiguration.fromEnvironment([
                "https_proxy": "a:1", "HTTPS_PROXY": "b:2", "no_proxy": "a.test", "NO_PROXY": "b.test",
            ])
        )
        #expect(both.https?.host == "a" && both.noProxy.matches(host: "a.test", port: 1))
        #expect(!both.noProxy.matches(host: "b.test", port: 1))
    }

    @Test(
        arguments: [
            (
                "http://user:p%40ss@proxy.local:3128",
                Proxy.http(host: "proxy.local", port: 3128, username: "user", password: "p@ss")
            ),
            ("proxy.local:3128", .http(host: "proxy.local", port: 3128)),
            ("proxy.local", .http(host: "proxy.local", port: 1080)),
            ("http://[::1]:3128", .http(host: "::1", port: 3128)),
            ("http://u:a%2520b@p:1", .http(host: "p", port: 1, username: "u", password: "a%20b")),
            ("socks5://s.local", .socks5(host: "s.local", port: 1080)),
            ("SOCKS5H://s.local:9050", .socks5(host: "s.local", port: 9050)),
        ] as [(String, Proxy)]
    )
    func proxyURLsAreRead(_ text: String, _ proxy: Proxy) {
        #expect(Proxy(url: text) == proxy)
    }

    @Test(arguments: [
        "https://secure-proxy:443", "ftp://x:21", "", "http://", "socks4://x:1080", "socks5://u:p@s:1080",
        "http://p:70000",
    ])
    func unsupportedProxyURLsAreRefused(_ text: String) {
        #expect(Proxy(url: text) == nil)
    }

    @Test func aProxysDescriptionNeverShowsItsPassword() {
        let proxy = Proxy.http(host: "proxy.local", port: 3128, username: "me", password: "hunter2")
        #expect(proxy.description == "http://me:***@proxy.local:3128")
        #expect(!"\(ProxyConfiguration(all: proxy))".contains("hunter2"))
        var dumped = ""
        dump(proxy, to: &dumped)
        #expect(!dumped.contains("hunter2") && !String(reflecting: proxy).contains("hunter2"))
        var options = RequestOptions()
        options.proxy = ProxyConfiguration(all: proxy)
        dumped = ""
        dump(options, to: &dumped)
        #expect(!dumped.contains("hunter2") && dumped.contains("***"))
        #expect(Proxy.http(host: "::1", port: 3128).address == "[::1]:3128")
    }
}
