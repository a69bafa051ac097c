import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// Certificates for the test servers, generated in memory when a test starts; nothing is
/// committed, so nothing expires in the repository.
///
/// ``generate(commonName:)`` makes a CA, a server certificate for `localhost` and `127.0.0.1`
/// issued by it, and a client certificate issued by it (for mutual TLS); ``selfSigned()`` makes a
/// server certificate that is its own issuer. Two calls never share a key, so one call's
/// certificates are "unrelated" to another's.
public struct TestCertificates: Sendable {
    /// The certificate to trust to reach the server: the CA, or the self-signed server certificate.
    public let caPEM: String
    /// The server's certificate, PEM.
    public let serverCertificatePEM: String
    /// The server certificate's DER bytes (for fingerprints).
    public let serverCertificateDER: [UInt8]
    /// A client certificate issued by the CA, PEM (for mutual TLS).
    public let clientCertificatePEM: String
    /// The client certificate's private key, PEM (PKCS #8).
    public let clientKeyPEM: String
    private let serverKeyPEM: String

    /// The address bytes of `127.0.0.1`, which the server certificate names unless told otherwise.
    public static let ipv4Loopback: [UInt8] = [127, 0, 0, 1]
    /// The address bytes of `::1`.
    public static let ipv6Loopback: [UInt8] = Array(repeating: 0, count: 15) + [1]

    /// Generates a fresh CA and a server and a client certificate issued by it, valid for a day;
    /// the server certificate names `localhost` and the IP addresses `ipAddresses` (4 or 16 bytes
    /// each).
    public static func generate(
        commonName: String = "localhost",
        ipAddresses: [[UInt8]] = [ipv4Loopback]
    ) throws -> TestCertificates {
        let caKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName { CommonName("Faraday Test CA") }
        let ca = try issue(
            subject: caName,
            key: caKey.publicKey,
            issuer: caName,
            issuerKey: caKey,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true))
            }
        )
        let serverKey = P256.Signing.PrivateKey()
        let server = try issue(
            subject: try DistinguishedName { CommonName(commonName) },
            key: serverKey.publicKey,
            issuer: caName,
            issuerKey: caKey,
            extensions: try serverExtensions(ipAddresses: ipAddresses)
        )
        let clientKey = P256.Signing.PrivateKey()
        let client = try issue(
            subject: try DistinguishedName { CommonName("Faraday Test Client") },
            key: clientKey.publicKey,
            issuer: caName,
            issuerKey: caKey,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                try ExtendedKeyUsage([.clientAuth])
            }
        )
        return try TestCertificates(ca: ca, server: server, serverKey: serverKey, client: client, clientKey: clientKey)
    }

    /// Generates a server certificate for `localhost` and `127.0.0.1` that is its own issuer;
    /// ``caPEM`` is that certificate. The client certificate is self-signed too.
    public static func selfSigned() throws -> TestCertificates {
        let serverKey = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("localhost") }
        let server = try issue(
            subject: name,
            key: serverKey.publicKey,
            issuer: name,
            issuerKey: serverKey,
            extensions: try serverExtensions()
        )
        let clientKey = P256.Signing.PrivateKey()
        let clientName = try DistinguishedName { CommonName("Faraday Test Client") }
        let client = try issue(
            subject: clientName,
            key: clientKey.publicKey,
            issuer: clientName,
            issuerKey: clientKey,
            extensions: try Certificate.Extensions { try ExtendedKeyUsage([.clientAuth]) }
        )
        return try TestCertificates(
            ca: server,
            server: server,
            serverKey: serverKey,
            client: client,
            clientKey: clientKey
        )
    }

    private init(
        ca: Certificate,
        server: Certificate,
        serverKey: P256.Signing.PrivateKey,
        client: Certificate,
        clientKey: P256.Signing.PrivateKey
    ) throws {
        var serializer = DER.Serializer()
        try serializer.serialize(server)
        caPEM = try ca.serializeAsPEM().pemString
        serverCertificatePEM = try server.serializeAsPEM().pemString
        serverCertificateDER = serializer.serializedBytes
        serverKeyPEM = serverKey.pemRepresentation
        clientCertificatePEM = try client.serializeAsPEM().pemString
        clientKeyPEM = clientKey.pemRepresentation
    }

    private static func issue(
        subject: DistinguishedName,
        key: P256.Signing.PublicKey,
        issuer: DistinguishedName,
        issuerKey: P256.Signing.PrivateKey,
        extensions: Certificate.Extensions
    ) throws -> Certificate {
        let now = Date()
        return try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: .init(key),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(86_400),
            issuer: issuer,
            subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: extensions,
            issuerPrivateKey: .init(issuerKey)
        )
    }

    private static func serverExtensions(ipAddresses: [[UInt8]] = [ipv4Loopback]) throws -> Certificate.Extensions {
        try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            try ExtendedKeyUsage([.serverAuth])
            SubjectAlternativeNames(
                [.dnsName("localhost")] + ipAddresses.map { .ipAddress(ASN1OctetString(contentBytes: $0[...])) }
            )
        }
    }

    /// The CA as an NIOSSL certificate, for a client's trust roots.
    public func caCertificate() throws -> NIOSSLCertificate {
        try NIOSSLCertificate(bytes: Array(caPEM.utf8), format: .pem)
    }

    /// The server side's TLS settings: with `clientAuthentication`, the server asks for a client
    /// certificate issued by the CA and refuses connections without one; `maximumVersion` caps the
    /// protocol version it speaks.
    func serverConfiguration(
        clientAuthentication: Bool = false,
        maximumVersion: TLSVersion? = nil
    ) throws -> TLSConfiguration {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [
                .certificate(try NIOSSLCertificate(bytes: Array(serverCertificatePEM.utf8), format: .pem))
            ],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(serverKeyPEM.utf8), format: .pem))
        )
        configuration.applicationProtocols = ["http/1.1"]
        if clientAuthentication {
            configuration.certificateVerification = .noHostnameVerification
            configuration.trustRoots = .certificates([try caCertificate()])
        }
        configuration.maximumTLSVersion = maximumVersion
        return configuration
    }
}
