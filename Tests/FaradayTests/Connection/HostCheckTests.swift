import Foundation
import HTTPTypes
import Testing

@testable import Faraday

/// Issue 66: which hosts a request may go to, as `URL.host` gives them (percent-decoded).
@Suite struct HostCheckTests {
    static let accepted = [
        "http://example.com/", "http://EXAMPLE.com./", "http://x_y-z.example/", "http://127.0.0.1:8080/",
        "http://[::1]:8080/", "http://[2001:db8::7]/", "http://[::ffff:192.0.2.1]/", "http://[fe80::1%25eth0]/",
        "http://b%C3%BCcher.de/", "http://bücher.de/", "http://localhost/",
        "http://\(String(repeating: "a", count: 63)).example/",
        "http://" + Array(repeating: String(repeating: "a", count: 49), count: 5).joined(separator: ".") + "/",
        // 253 bytes, and 253 and a last `.`.
        "http://" + Array(repeating: String(repeating: "a", count: 50), count: 4).joined(separator: ".") + "."
            + String(repeating: "a", count: 49) + "/",
        "http://" + Array(repeating: String(repeating: "a", count: 50), count: 4).joined(separator: ".") + "."
            + String(repeating: "a", count: 49) + "./",
    ]

    static let refused = [
        "http://evil%0d%0ax/", "http://evil%0ax/", "http://127.0.0.1%00.evil/", "http://a%20b/", "http://a%09b/",
        "http://a%7Fb/", "http://a%2Fb/", "http://a%3Fb/", "http://a%23b/", "http://a%40b/", "http://a%5Cb/",
        "http://a%25b/", "http://a%3Cb%3E/", "http://a%5Eb/", "http://a%7Cb/", "http://a%5Bb%5D/", "http://a..b/",
        "http://.a/", "http://../", "http://\(String(repeating: "a", count: 64)).example/",
        "http://" + Array(repeating: String(repeating: "a", count: 50), count: 6).joined(separator: ".") + "/",
        "http://[fe80::1%25eth0%0d%0a]/",
        // 254 bytes; a `:` decoded (not an IPv6 address), and what inet_pton refuses.
        "http://" + Array(repeating: String(repeating: "a", count: 50), count: 5).joined(separator: ".") + "/",
        "http://127.0.0.1%3A22/", "http://a%3Ab/", "http://%3A%3A%3A/",
    ]

    @Test(arguments: accepted)
    func aValidHostIsAccepted(_ text: String) throws {
        let url = try #require(URL(string: text))
        #expect(HostCheck.problem(with: url) == nil)
    }

    @Test(arguments: refused)
    func aHostThatCouldNotBeSentAsItIsIsRefused(_ text: String) throws {
        let url = try #require(URL(string: text), "Foundation parses it, so the check has to")
        let error = #expect(throws: FaradayError.self) { try HostCheck.check(url, method: .get) }
        #expect(error?.code == .invalidURL)
        #expect(error?.method == .get && error?.url == url)
    }

    @Test func theMessageShowsTheHostEscapedAndAnOverlongOneCut() throws {
        let url = try #require(URL(string: "http://evil%0d%0ax/"))
        let message = try #require(HostCheck.problem(with: url))
        #expect(message.contains(#""evil\r\nx""#) && !message.contains("\r"))
        let long = try #require(URL(string: "http://" + String(repeating: "a.", count: 400) + "b/"))
        #expect((HostCheck.problem(with: long)?.count ?? 0) < 200)
    }

    @Test func aConnectionRefusesSuchABaseURLAndSuchAPath() throws {
        #expect(throws: FaradayError.self) { try Connection(url: "http://evil%0d%0ax/") }
        let base = BaseURL(try #require(URL(string: "http://example.com")))
        #expect(throws: FaradayError.self) {
            _ = try URLResolver.resolve("http://evil%0d%0ax/", against: base, resolution: .underBasePath)
        }
    }
}
