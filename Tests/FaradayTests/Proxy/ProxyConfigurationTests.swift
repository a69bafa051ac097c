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

    // Entries are separated by commas, spaces and tabs in any mix, as curl 7.88 reads them
    // (lib/noproxy.c: a pattern ends at a blank or a comma). curl 8.9 and later stop reading at the
    // first space instead; Faraday keeps 7.88's reading.
    @Test(
        arguments: [
            // list, host, goes direct
            ("foo.org example.com", "example.com", true),
            ("foo.org example.com", "foo.org", true),
            ("foo.org example.com", "api.example.com", true),
            ("foo.org example.com", "example.org", false),
            ("foo.org\texample.com", "example.com", true),
            ("a.test ,b.test,, c.test\t,\t d.test  e.test", "d.test", true),
            ("a.test ,b.test,, c.test\t,\t d.test  e.test", "e.test", true),
            ("a.test ,b.test,, c.test\t,\t d.test  e.test", "c.test", true),
            ("a.test ,b.test,, c.test\t,\t d.test  e.test", "f.test", false),
            ("localhost 10.0.0.0/8,::1", "10.1.2.3", true),
            ("localhost 10.0.0.0/8,::1", "[::1]", true),
            ("foo.org\nexample.com", "example.com", false),  // a newline is no separator for curl
            (" *", "example.com", false),  // `*` counts only as the whole list (curl's strcmp)
            ("* ", "example.com", false),
            ("..example.com", "www.example.com", false),  // one leading dot ignored, not two
            ("example.com..", "example.com", false),  // one trailing dot ignored, not two
            ("example.com", "example.com..", false),
            ("10.0.0.1", "10.0.0.1.", true),  // not an address: a name, compared as text
            ("10.0.0.0/8", "10.0.0.1.", false),
        ] as [(String, String, Bool)]
    )
    func noProxySplitsOnCommasSpacesAndTabs(_ list: String, _ host: String, _ direct: Bool) {
        #expect(NoProxy(list).matches(host: host, port: 80) == direct)
    }

    // curl 7.88's own cases, tests/unit/unit1614.c at tag curl-7_88_0 (the `list` table, for
    // Curl_check_noproxy), with its expected results unchanged. Hosts in brackets are read as that
    // test passes them.
    @Test(
        arguments: [
            // host, list, goes direct
            ("www.example.com", "localhost .example.com .example.de", true),
            ("www.example.com", "localhost,.example.com,.example.de", true),
            ("www.example.com.", "localhost,.example.com,.example.de", true),
            ("example.com", "localhost,.example.com,.example.de", true),
            ("example.com.", "localhost,.example.com,.example.de", true),
            ("www.example.com", "localhost,.example.com.,.example.de", true),
            ("www.example.com", "localhost,www.example.com.,.example.de", true),
            ("example.com", "localhost,example.com,.example.de", true),
            ("example.com.", "localhost,example.com,.example.de", true),
            ("nexample.com", "localhost,example.com,.example.de", false),
            ("www.example.com", "localhost,example.com,.example.de", true),
            ("127.0.0.1", "127.0.0.1,localhost", true),
            ("127.0.0.1", "127.0.0.1,localhost,", true),
            ("127.0.0.1", "127.0.0.1/8,localhost,", true),
            ("127.0.0.1", "127.0.0.1/28,localhost,", true),
            ("127.0.0.1", "127.0.0.1/31,localhost,", true),
            ("127.0.0.1", "localhost,127.0.0.1", true),
            (
                "127.0.0.1",
                "localhost,127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.1."
                    + "127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.1.127."
                    + "0.0.1.127.0.0.1.127.0.0.",  // 128 bytes "address"
                false
            ),
            (
                "127.0.0.1",
                "localhost,127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.1."
                    + "127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.1.127."
                    + "0.0.1.127.0.0.1.127.0.0",  // 127 bytes "address"
                false
            ),
            ("localhost", "localhost,127.0.0.1", true),
            ("localhost", "127.0.0.1,localhost", true),
            ("foobar", "barfoo", false),
            ("foobar", "foobar", true),
            ("192.168.0.1", "foobar", false),
            ("192.168.0.1", "192.168.0.0/16", true),
            ("192.168.0.1", "192.168.0.0/24", true),
            ("192.168.0.1", "192.168.0.0/32", false),
            ("192.168.0.1", "192.168.0.0", false),
            ("192.168.1.1", "192.168.0.0/24", false),
            ("192.168.1.1", "foo, bar, 192.168.0.0/24", false),
            ("192.168.1.1", "foo, bar, 192.168.0.0/16", true),
            ("[::1]", "foo, bar, 192.168.0.0/16", false),
            ("[::1]", "foo, bar, ::1/64", true),
            ("bar", "foo, bar, ::1/64", true),
            ("BAr", "foo, bar, ::1/64", true),
            ("BAr", "foo,,,,,              bar, ::1/64", true),
            ("www.example.com", "foo, .example.com", true),
            ("www.example.com", "www2.example.com, .example.net", false),
            ("example.com", ".example.com, .example.net", true),
            ("nonexample.com", ".example.com, .example.net", false),
        ] as [(String, String, Bool)]
    )
    func noProxyAgreesWithCurl788sUnitTests(_ host: String, _ list: String, _ direct: Bool) {
        #expect(NoProxy(list).matches(host: host, port: 80) == direct)
    }

    // The same file's `list4` and `list6` tables (Curl_cidr4_match and Curl_cidr6_match: address,
    // network, bits), written as the entry `network/bits`. Bits 0 is what curl passes for an entry
    // without a prefix, so those rows are written without one.
    @Test(
        arguments: [
            // host, entry, goes direct
            ("192.160.0.1", "192.160.0.1/33", false),
            ("192.160.0.1", "192.160.0.1/32", true),
            ("192.160.0.1", "192.160.0.1", true),
            ("192.160.0.1", "192.160.0.1/24", true),
            ("192.160.0.1", "192.160.0.1/26", true),
            ("192.160.0.1", "192.160.0.1/20", true),
            ("192.160.0.1", "192.160.0.1/18", true),
            ("192.160.0.1", "192.160.0.1/12", true),
            ("192.160.0.1", "192.160.0.1/8", true),
            ("192.160.0.1", "10.0.0.1/8", false),
            ("192.160.0.1", "10.0.0.1/32", false),
            ("192.160.0.1", "10.0.0.1", false),
            ("::1", "::1", true),
            ("::1", "::1/128", true),
            ("::1", "0:0::1/128", true),
            ("::1", "0:0::1/129", false),
            ("fe80::ab47:4396:55c9:8474", "fe80::ab47:4396:55c9:8474/64", true),
            // Deliberate difference: an explicit `/0` is every address of the family in Faraday;
            // curl reads bits 0 as "no prefix", the address alone (so these two are false there).
            ("192.160.0.1", "10.0.0.1/0", true),
            ("2001:db8::1", "::1/0", true),
            ("10.0.0.1", "::/0", false),  // but never the other family
        ] as [(String, String, Bool)]
    )
    func noProxyAgreesWithCurl788sCIDRUnitTests(_ host: String, _ entry: String, _ direct: Bool) {
        #expect(NoProxy(entry).matches(host: host, port: 80) == direct)
    }

    // Rows added to unit1614.c after 7.88 (curl 8.9 to 8.18: strict prefixes, the fixed IPv6 mask,
    // unbracketed IPv6 hosts). Faraday agrees with all of them but the first, where it keeps
    // 7.88's reading. Where 7.88 itself answered otherwise, through its own bugs, the row says so.
    @Test(
        arguments: [
            // host, list, goes direct
            // Deliberate difference: curl 8.9+ expects false (it stops at the space); 7.88 true.
            ("www.example.com", "localhost .example.com .example.de", true),
            ("192.168.0.1", "192.168.0.0/16a", false),  // 7.88 (atoi): true
            ("192.168.0.1", "192.168.0.0/16 ", true),
            ("192.168.0.1", "192.168.0.0/a16", false),
            ("192.168.0.1", "192.168.0.0/ 16", false),
            ("192.168.0.1", "192.168.0.1/32", true),
            ("192.168.0.1", "192.168.0.1/33", false),
            ("192.168.1.1", "192.168.0.0/33", false),
            ("::1", "foo, bar, 192.168.0.0/16", false),
            ("::1", "foo, bar, ::1/64", true),
            ("::1", "::1/64", true),
            ("::1", "::1/96", true),
            ("::1", "::1/129", false),
            ("::1", "::1/128", true),
            ("::1", "::1/127", true),  // 7.88 (mask bug): false, and for /126 to /122 too
            ("::1", "::1/a127", false),  // 7.88 (atoi): true
            ("::1", "::1/127a", false),
            ("::1", "::1/ 127", false),  // 7.88: true (`::1/` read as `::1`)
            ("::1", "::1/127 ", true),
            ("::1", "::1/126", true),
            ("::1", "::1/125", true),
            ("::1", "::1/124", true),
            ("::1", "::1/123", true),
            ("::1", "::1/122", true),
            ("2001:db8:8000::1", "2001:db8::/65", false),
            ("2001:db8:8000::1", "2001:db8::/66", false),
            ("2001:db8:8000::1", "2001:db8::/67", false),
            ("2001:db8:8000::1", "2001:db8::/68", false),
            ("2001:db8:8000::1", "2001:db8::/69", false),
            ("2001:db8:8000::1", "2001:db8::/70", false),
            ("2001:db8:8000::1", "2001:db8::/71", false),
            ("2001:db8:8000::1", "2001:db8::/72", false),
            ("2001:db8::1", "2001:db8::/65", true),  // 7.88 (mask bug): false to /71
            ("2001:db8::1", "2001:db8::/66", true),
            ("2001:db8::1", "2001:db8::/67", true),
            ("2001:db8::1", "2001:db8::/68", true),
            ("2001:db8::1", "2001:db8::/69", true),
            ("2001:db8::1", "2001:db8::/70", true),
            ("2001:db8::1", "2001:db8::/71", true),
            ("2001:db8::1", "2001:db8::/72", true),
            ("::1", "::1/129", false),
        ] as [(String, String, Bool)]
    )
    func noProxyAgreesWithCurlsLaterUnitTests(_ host: String, _ list: String, _ direct: Bool) {
        #expect(NoProxy(list).matches(host: host, port: 80) == direct)
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
            ("socks5h://u:p@s:1080", .socks5(host: "s", port: 1080, username: "u", password: "p")),
        ] as [(String, Proxy)]
    )
    func proxyURLsAreRead(_ text: String, _ proxy: Proxy) {
        #expect(Proxy(url: text) == proxy)
    }

    @Test(arguments: ["ftp://x:21", "", "http://", "http://p:70000", "socks6://x"])
    func proxyURLsCurlWouldNotUseAreNotRead(_ text: String) {
        #expect(Proxy(url: text) == nil)
    }

    /// Every proxy curl would use is read, the ones no adapter can use too, so that a request
    /// refuses it rather than go direct.
    @Test(
        arguments: [
            ("https://secure-proxy", Proxy.Kind.https, 443, nil), ("socks4://x:1080", .socks4, 1080, nil),
            ("socks4a://x", .socks4, 1080, nil), ("socks5://u:p@s:1080", .socks5, 1080, "u"),
        ] as [(String, Proxy.Kind, Int, String?)]
    )
    func proxiesNoAdapterCanUseAreReadToo(_ text: String, _ kind: Proxy.Kind, _ port: Int, _ user: String?) throws {
        let proxy = try #require(Proxy(url: text))
        #expect(proxy.kind == kind && proxy.port == port && proxy.username == user)
    }

    /// Issue 44: `https_proxy=https://…` and `all_proxy=socks5h://user:pass@…` were dropped, and
    /// the requests went direct.
    @Test func theEnvironmentKeepsEveryProxyWithItsVariable() throws {
        let configuration = try #require(
            ProxyConfiguration.fromEnvironment([
                "https_proxy": "https://tls-proxy.example", "all_proxy": "socks5h://me:secret@socks.example:1080",
            ])
        )
        #expect(configuration.https?.kind == .https && configuration.https?.variable == "https_proxy")
        #expect(configuration.http?.kind == .socks5 && configuration.http?.variable == "all_proxy")
        #expect(configuration.http?.password == "secret")
        #expect(!"\(configuration)".contains("secret"))
        // A value that is no proxy URL is refused too, as curl fails on it, never skipped.
        let unreadable = try #require(
            ProxyConfiguration.fromEnvironment(["http_proxy": "ftp://p", "all_proxy": "p:1"])
        )
        #expect(unreadable.http?.kind == .unreadable && unreadable.http?.variable == "http_proxy")
        #expect(unreadable.https == .http(host: "p", port: 1))
        #expect(NoProxy(". ,").matches(host: "x..", port: 80) == false, "a lone dot names no host")
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
