import FaradayTestSupport
import Foundation
import Testing

@testable import Faraday

/// Which session a request gets on URLSessionAdapter: URLSession checks a server's certificates
/// once per connection, so a request may only reuse a connection opened under every TLS option
/// and pin it has (curl CVE-2021-22924, CVE-2022-27782). The key is made on every platform; the
/// sessions apply it on Apple platforms (on Linux the adapter refuses TLS options and pins).
@Suite struct URLSessionSessionKeyTests {
    private func request(
        _ url: String = "https://api.example.com/",
        _ change: (inout RequestOptions) -> Void = { _ in }
    )
        throws -> Request
    {
        var request = Request(method: .get, url: try #require(URL(string: url)))
        change(&request.options)
        return request
    }

    private func key(
        _ url: String = "https://api.example.com/",
        _ change: (inout RequestOptions) -> Void = { _ in }
    )
        throws -> URLSessionAdapter.SessionKey?
    {
        URLSessionAdapter.sessionKey(for: try request(url, change))
    }

    private static let pin = try? CertificatePin.publicKeySHA256("sha256/47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=")

    @Test func theDefaultsShareOneSession() throws {
        #expect(try key() == nil)
        #expect(try key { $0.tls.minimumVersion = .v1_2 } == nil, "the default spelled out is the default")
    }

    @Test func everyTLSOptionGetsASessionOfItsOwn() throws {
        let root = try TLSCertificate(der: try TestCertificates.selfSigned().serverCertificateDER)
        let variants: [(inout RequestOptions) -> Void] = [
            { $0.tls.verification = .insecureNoVerification },
            { $0.tls.verification = .skipHostnameCheck },
            { $0.tls.trustsSystemRoots = false },
            { $0.tls.trustRoots = [root] },
            {
                $0.tls.trustRoots = [root]
                $0.tls.trustsSystemRoots = false
            },
            { $0.tls.minimumVersion = .v1_3 },
        ]
        let keys = try variants.map { change in try #require(try key("https://api.example.com/", change)) }
        #expect(Set(keys).count == variants.count, "no two TLS settings share a session")
        // The same options again find the same session.
        #expect(try key("https://api.example.com/", variants[0]) == keys[0])
        #expect(try key("https://other.example/", variants[0]) == keys[0], "TLS options alone: any host")
    }

    @Test func aPinnedHostGetsASessionOfItsOwn() throws {
        let pin = try #require(Self.pin)
        let policy = PinningPolicy([.pin("api.example.com", [pin])])
        let pinned = try #require(try key { $0.pinning = policy })
        #expect(pinned.pinnedHost == "api.example.com")
        #expect(try key("https://API.example.com/x") { $0.pinning = policy } == pinned)
        #expect(try key("https://unpinned.example/") { $0.pinning = policy } == nil)
        #expect(try key { $0.pinning = PinningPolicy([.pin("api.example.com", [pin], scope: .leaf)]) } != pinned)
    }
}
