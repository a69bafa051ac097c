import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// A certificate authority and a server certificate for `localhost` and `127.0.0.1`, generated
/// in memory when a test starts; nothing is committed, so nothing expires in the repository.
public struct TestCertificates: Sendable {
    /// The CA certificate, PEM: trust it to reach the server.
    public let caPEM: String
    /// The server's certificate, PEM.
    public let serverCertificatePEM: String
    /// The server certificate's DER bytes (for fingerprints).
    public let serverCertificateDER: [UInt8]
    private let serverKeyPEM: String

    /// Generates a fresh CA and a server certificate signed by it, valid for a day.
    public static func generate(commonName: String = "localhost") throws -> TestCertificates {
        let now = Date()
        let caKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName { CommonName("Faraday Test CA") }
        let ca = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: .init(caKey.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(86_400),
            issuer: caName,
            subject: caName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: .init(caKey))

        let serverKey = P256.Signing.PrivateKey()
        let server = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: .init(serverKey.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(86_400),
            issuer: caName,
            subject: try DistinguishedName { CommonName(commonName) },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
            },
            issuerPrivateKey: .init(caKey))

        var serializer = DER.Serializer()
        try serializer.serialize(server)
        return TestCertificates(
            caPEM: try ca.serializeAsPEM().pemString,
            serverCertificatePEM: try server.serializeAsPEM().pemString,
            serverCertificateDER: serializer.serializedBytes,
            serverKeyPEM: serverKey.pemRepresentation)
    }

    /// The CA as an NIOSSL certificate, for a client's trust roots.
    public func caCertificate() throws -> NIOSSLCertificate {
        try NIOSSLCertificate(bytes: Array(caPEM.utf8), format: .pem)
    }

    func serverConfiguration() throws -> TLSConfiguration {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: Array(serverCertificatePEM.utf8), format: .pem))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(serverKeyPEM.utf8), format: .pem)))
        configuration.applicationProtocols = ["http/1.1"]
        return configuration
    }
}
