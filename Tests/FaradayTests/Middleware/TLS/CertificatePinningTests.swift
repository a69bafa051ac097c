import Faraday
import Foundation
import InMemoryLogging
import Logging
import Testing

/// A self-signed P-256 certificate made with `openssl req -x509 -newkey ec`, and its
/// `SubjectPublicKeyInfo` as `openssl pkey -pubin -outform der` prints it.
private let ecPEM = """
    -----BEGIN CERTIFICATE-----
    MIIBiDCCAS+gAwIBAgIUD9Q+K1RrOwCeRZpt/E51PcoD50QwCgYIKoZIzj0EAwIw
    GjEYMBYGA1UEAwwPZml4dHVyZS5leGFtcGxlMB4XDTI2MTEyMjA1NTEzN1oXDTM2
    MTExOTA1NTEzN1owGjEYMBYGA1UEAwwPZml4dHVyZS5leGFtcGxlMFkwEwYHKoZI
    zj0CAQYIKoZIzj0DAQcDQgAE/NjR0mbeSOYFIyqoK4wcuuAVC9IT0TZuuDluaGkE
    gPEHN0pQDQWLmINDRezbSrViwxysZ8kwnIQjMro9MuzueqNTMFEwHQYDVR0OBBYE
    FJDMcOg5vGQDhvXchJhej357J3lzMB8GA1UdIwQYMBaAFJDMcOg5vGQDhvXchJhe
    j357J3lzMA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDRwAwRAIgGrhItvbj
    1SZh/3jzpgXWH0EiaQa7B3QCamxrahOv/iICIChuYuXCR/y+XoJ2mMAt6f0MNLvU
    Iy1HJ+l+M57Rsg71
    -----END CERTIFICATE-----
    """
private let ecSPKI =
    "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE/NjR0mbeSOYFIyqoK4wcuuAVC9IT0TZuuDluaGkEgPEHN0pQDQWLmINDRezbSrViwxysZ8kwnIQjMro9Muzueg=="

/// The same for RSA 2048, whose lengths take the long DER form.
private let rsaPEM = """
    -----BEGIN CERTIFICATE-----
    MIIDDTCCAfWgAwIBAgIUXHhiJV9GZCDyZIuXGC5sicZR8EkwDQYJKoZIhvcNAQEL
    BQAwFjEUMBIGA1UEAwwLcnNhLmV4YW1wbGUwHhcNMjYxMTIyMDU1MTM4WhcNMzYx
    MTE5MDU1MTM4WjAWMRQwEgYDVQQDDAtyc2EuZXhhbXBsZTCCASIwDQYJKoZIhvcN
    AQEBBQADggEPADCCAQoCggEBAJDudBRjdX/mlzHBt0pJDaHEsdHpnvTLlssMQW7S
    euEvD1biqxiZQyzWKNrKj4j7yKDdnz9kPYcmZWLatftXnJVL7Pi+RneE0pf530py
    4aCT9+jicFfNHRSIUMsFYeo+qTIp+nCxBycJgILHyhEKPwQvx3ian/THIRd26fn4
    GL4R2MSZOTILh7tO43slPsNoAd7PH8LcUAriiXt33iQu7X7wrRyU/MJz6l6Ges57
    5xviDlS22n3/QF+dbd1w9kJlq+smUJsenSiqZOLdMvQB1CRWfQ555MPf+1SCKO2D
    9RTsC1xHW0alwAW0lPV2mGqCIWFCH0gl5gw785mlwnpUU20CAwEAAaNTMFEwHQYD
    VR0OBBYEFO5vaL7zhQ4qZ/gVCyi4nbm1cbuFMB8GA1UdIwQYMBaAFO5vaL7zhQ4q
    Z/gVCyi4nbm1cbuFMA8GA1UdEwEB/wQFMAMBAf8wDQYJKoZIhvcNAQELBQADggEB
    AG8vOmAN1bb+PZj+jn1Dxk4nRf9zzJwL7xJW+u3XxsW1xqe3F4oUzA/CkQ4iGUPl
    3OsUxfmYnQm8RYKE5nh987P/afyrKPnJ7JSodDJldENTDxleDhnc2+C+E/76apjA
    CYzHBQCua1PyMxp+sWeAYe4h655Q24BzuKl7wQ8iDb9pmGF/ldXl6iQc2Oa/Wti4
    JKa9kkuyUU7H0FeMzNzRqxyqujbY0Al6l/53GdEfyz0qSX0IykApJxPEZnpJqH8H
    pYjcsNxF9zj1M5HAnVyUTgJhhPBxC4XVcPBjdmnJSnqvQ+nFqkKlFCBZot5gQIBg
    sdOE7T7PGgJDsq9Y2uHFNiM=
    -----END CERTIFICATE-----
    """
private let rsaSPKI =
    "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAkO50FGN1f+aXMcG3SkkNocSx0eme9MuWywxBbtJ64S8PVuKrGJlDLNYo2sqPiPvIoN2fP2Q9hyZlYtq1+1eclUvs+L5Gd4TSl/nfSnLhoJP36OJwV80dFIhQywVh6j6pMin6cLEHJwmAgsfKEQo/BC/HeJqf9MchF3bp+fgYvhHYxJk5MguHu07jeyU+w2gB3s8fwtxQCuKJe3feJC7tfvCtHJT8wnPqXoZ6znvnG+IOVLbaff9AX51t3XD2QmWr6yZQmx6dKKpk4t0y9AHUJFZ9Dnnkw9/7VIIo7YP1FOwLXEdbRqXABbSU9XaYaoIhYUIfSCXmDDvzmaXCelRTbQIDAQAB"

private func isInvalid(_ error: FaradayError) -> Bool { error.code == .invalidRequest }

@Suite struct TLSCertificateTests {
    @Test func readsPEMAndFindsThePublicKeyInfo() throws {
        let ec = try TLSCertificate(pem: ecPEM)
        #expect(Data(ec.subjectPublicKeyInfo).base64EncodedString() == ecSPKI)
        let rsa = try TLSCertificate(pem: rsaPEM)
        #expect(Data(rsa.subjectPublicKeyInfo).base64EncodedString() == rsaSPKI)
        #expect(try TLSCertificate(der: rsa.der) == rsa)
    }

    @Test func readsEveryCertificateOfABundle() throws {
        let bundle = "junk before\n" + ecPEM + "\n# comment\n" + rsaPEM + "\n"
        let certificates = try TLSCertificate.certificates(pem: bundle)
        #expect(certificates.count == 2)
        #expect(certificates.last == (try TLSCertificate(pem: rsaPEM)))
    }

    @Test func badInputIsATypedError() throws {
        #expect(throws: FaradayError.self) { try TLSCertificate(pem: "no certificate here") }
        #expect(throws: FaradayError.self) {
            try TLSCertificate(pem: "-----BEGIN CERTIFICATE-----\n%%%not base64%%%\n-----END CERTIFICATE-----")
        }
        #expect(throws: FaradayError.self) { try TLSCertificate(pem: "-----BEGIN CERTIFICATE-----\nMIIB") }
        let der = try TLSCertificate(pem: ecPEM).der
        // Every truncation, and a length byte claiming more than there is.
        for length in [0, 1, 2, 10, der.count / 2, der.count - 1] {
            #expect(throws: FaradayError.self) { try TLSCertificate(der: der.prefix(length)) }
        }
        var lying = der
        lying[1] = 0x84
        #expect(throws: FaradayError.self) { try TLSCertificate(der: lying) }
        #expect(throws: FaradayError.self) { try TLSCertificate(der: der + [0]) }
    }

    @Test func randomBytesNeverCrash() {
        var generator = SystemRandomNumberGenerator()
        let der = (try? TLSCertificate(pem: ecPEM).der) ?? []
        for _ in 0..<2_000 {
            var bytes = der
            for _ in 0..<3 {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            _ = try? TLSCertificate(der: bytes)
            _ = try? TLSCertificate(der: (0..<Int.random(in: 0..<64)).map { _ in UInt8.random(in: 0...255) })
        }
    }

    @Test func aClientIdentityNeedsACertificateAndAKey() throws {
        #expect(throws: FaradayError.self) { try ClientIdentity(certificateChain: [], privateKey: .der([1])) }
        #expect(throws: FaradayError.self) { try ClientIdentity(certificatePEM: ecPEM, privateKeyPEM: "not a key") }
        let identity = try ClientIdentity(
            certificatePEM: ecPEM,
            privateKeyPEM: "-----BEGIN PRIVATE KEY-----\nAA==\n-----END PRIVATE KEY-----"
        )
        #expect(identity.certificateChain.count == 1)
        // Options are printed with envs and errors: the key never is.
        var options = RequestOptions()
        options.tls = TLSOptions(clientIdentity: identity)
        var dumped = ""
        dump(options, to: &dumped)
        for printed in ["\(options)", String(reflecting: options), dumped, "\(identity)"] {
            #expect(!printed.contains("BEGIN PRIVATE KEY") && !printed.contains("AA=="), "\(printed)")
        }
        // What middleware keep in options shows its type, not its value.
        #expect("\(options)".contains("extensions: [TLSOptions]"))
        #expect(TLSOptions().isDefault)
        #expect(!TLSOptions(clientIdentity: identity).isDefault)
    }
}

@Suite struct CertificatePinTests {
    private let sha256 = Array(0..<32).map(UInt8.init)
    private let sha1 = Array(100..<120).map(UInt8.init)

    private func presented(spki: [UInt8]? = nil) throws -> PresentedCertificate {
        PresentedCertificate(
            try TLSCertificate(pem: ecPEM),
            sha256: sha256,
            sha1: sha1,
            publicKeySHA256: spki ?? sha256.reversed()
        )
    }

    @Test func fingerprintsInEveryUsualForm() throws {
        let certificate = try presented()
        let hex = sha256.map { String(format: "%02X", $0) }
        for form in [
            hex.joined(separator: ":"), hex.joined(separator: " "), hex.joined().lowercased(), hex.joined(),
            "sha256/" + Data(sha256).base64EncodedString(), Data(sha256).base64EncodedString(),
            "  " + hex.joined(separator: ":").lowercased() + "\n",
        ] {
            #expect(try CertificatePin.certificateSHA256(form).matches(certificate), "\(form)")
        }
        let sha1Hex = sha1.map { String(format: "%02x", $0) }.joined(separator: ":")
        #expect(try CertificatePin.certificateSHA1(sha1Hex).matches(certificate))
        #expect(try CertificatePin.certificateSHA1("sha1/" + Data(sha1).base64EncodedString()).matches(certificate))
        let spki = "sha256/" + Data(sha256.reversed()).base64EncodedString()
        #expect(try CertificatePin.publicKeySHA256(spki).matches(certificate))
        #expect(try !CertificatePin.certificateSHA256(spki).matches(certificate))
        #expect(CertificatePin.certificate(try TLSCertificate(pem: ecPEM)).matches(certificate))
        #expect(!CertificatePin.certificate(try TLSCertificate(pem: rsaPEM)).matches(certificate))
    }

    @Test func malformedFingerprintsAreTypedErrors() {
        let hex = sha256.map { String(format: "%02X", $0) }.joined()
        for bad in [
            "", "zz", String(hex.dropLast(2)), hex + "00", "sha256/not-base64!", Data(sha1).base64EncodedString(),
            String(repeating: "g", count: 64),
        ] {
            #expect(throws: FaradayError.self, "\(bad)") { try CertificatePin.certificateSHA256(bad) }
        }
        #expect(throws: FaradayError.self) { try CertificatePin.certificateSHA1(hex) }
        #expect(throws: FaradayError.self) { try CertificatePin.publicKeySHA256(String(hex.prefix(40))) }
    }
}

@Suite struct PinningPolicyTests {
    private let anyPin = CertificatePin.certificate(try! TLSCertificate(pem: ecPEM))

    @Test func aDomainRuleCoversItsSubdomainsAndTheMostSpecificRuleWins() {
        let policy = PinningPolicy([
            .pin("example.com", [anyPin]),
            .pin("exact.org", includingSubdomains: false, [anyPin]),
            .disable("status.example.com"),
            .pin("deep.api.example.com", [anyPin], scope: .leaf),
        ])
        #expect(policy.rule(for: "example.com")?.host == "example.com")
        #expect(policy.rule(for: "api.example.com")?.host == "example.com")
        #expect(policy.rule(for: "API.Example.COM.")?.host == "example.com")
        #expect(policy.rule(for: "x.deep.api.example.com")?.host == "deep.api.example.com")
        #expect(policy.rule(for: "status.example.com")?.mode == .disabled)
        #expect(!policy.pinsConnections(to: "status.example.com"))
        // The disabled rule is exact: its subdomains stay pinned by the domain rule.
        #expect(policy.rule(for: "eu.status.example.com")?.host == "example.com")
        #expect(policy.rule(for: "exact.org")?.host == "exact.org")
        #expect(policy.rule(for: "www.exact.org") == nil)
        #expect(policy.rule(for: "notexample.com") == nil)
        #expect(policy.rule(for: "example.com.evil.net") == nil)
        #expect(!policy.pinsConnections(to: "other.net"))
        #expect(PinningPolicy([.pin("[::1]", [anyPin])]).pinsConnections(to: "::1"))
    }

    private func chain() throws -> [PresentedCertificate] {
        let leaf = try TLSCertificate(pem: ecPEM)
        let issuer = try TLSCertificate(pem: rsaPEM)
        return [
            PresentedCertificate(leaf, sha256: [1], sha1: [2], publicKeySHA256: [3]),
            PresentedCertificate(issuer, sha256: [4], sha1: [5], publicKeySHA256: [6]),
        ]
    }

    @Test func aMismatchNamesTheHostAndEveryFingerprintSeen() throws {
        let issuerPin = CertificatePin.certificate(try TLSCertificate(pem: rsaPEM))
        let leafOnly = PinningPolicy([.pin("example.com", [issuerPin], scope: .leaf)])
        let error = #expect(throws: FaradayError.self) {
            try leafOnly.verify(host: "api.example.com", chain: try chain())
        }
        #expect(error?.code == .tlsFailure)
        #expect(error?.message.contains("api.example.com") == true)
        #expect(error?.message.contains("sha256/Aw==") == true)
        #expect(error?.message.contains("sha256/Bg==") == true)
        let mismatch = error?.underlying as? CertificatePinningMismatch
        #expect(mismatch?.host == "api.example.com")
        #expect(mismatch?.presented.count == 2)
        // In chain scope the issuer's pin matches; a backup pin matches like any other.
        try PinningPolicy([.pin("example.com", [issuerPin])]).verify(host: "api.example.com", chain: try chain())
        try PinningPolicy([.pin("example.com", [], backup: [issuerPin])]).verify(
            host: "example.com",
            chain: try chain()
        )
        // Unpinned and disabled hosts pass whatever they present.
        try leafOnly.verify(host: "other.net", chain: [])
        try PinningPolicy([.disable("example.com")]).verify(host: "example.com", chain: [])
    }

    @Test func debugModeLogsWhatItSeesAndLetsTheConnectionThrough() throws {
        let logs = InMemoryLogHandler()
        let policy = PinningPolicy([.debug("example.com")], logger: Logger(label: "pins") { _ in logs })
        try policy.verify(host: "example.com", chain: try chain())
        let entry = try #require(logs.entries.first)
        #expect(entry.level == .warning)
        #expect("\(entry.metadata)".contains("sha256/Aw=="))
        #expect("\(entry.metadata)".contains("sha256/Bg=="))
    }

    @Test func theMiddlewareHandsThePolicyToTheAdapterAndRefusesPlainHTTP() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/a") { _, _ in StubResponse(status: .ok, body: "ok") }
        let seen = Recorder()
        stubs.get("/v1/b") { env, _ in
            seen.record(env.request.options.pinning?.rule(for: env.request.url.host ?? "")?.host ?? "none")
            return StubResponse(status: .ok, body: "ok")
        }
        let pinning = CertificatePinning.Handler(PinningPolicy([.pin("example.com", [anyPin])]))
        let https = try makeConnection(url: "https://api.example.com/v1", [pinning], adapter: stubs)
        _ = try await https.get("b").value
        #expect(seen.log == ["example.com"])
        let http = try makeConnection(url: "http://api.example.com/v1", [pinning], adapter: stubs)
        let error = await #expect(throws: FaradayError.self) { try await http.get("a").value }
        #expect(error?.code == .tlsFailure)
        // An unpinned host over plain HTTP is none of its business.
        let other = try makeConnection(url: "http://other.net/v1", [pinning], adapter: stubs)
        let answer = try await other.get("a").value
        #expect(answer.response?.text == "ok")
    }
}
