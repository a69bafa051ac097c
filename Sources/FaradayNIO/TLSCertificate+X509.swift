#if NIO
import Faraday
import SwiftASN1
import X509

extension TLSCertificate {
    /// Reads a certificate with swift-certificates (on swift-asn1's DER parser) instead of
    /// Faraday's own small DER reader: the adapter links them anyway, and they check the whole
    /// certificate, not only the way to its key. The `SubjectPublicKeyInfo` is taken as the
    /// certificate encodes it, byte for byte, since that is what `pin-sha256` pins hash.
    ///
    /// - Throws: ``FaradayError/Code/tlsFailure`` for bytes that are not an X.509 certificate.
    package init(x509 der: [UInt8]) throws(FaradayError) {
        do {
            _ = try Certificate(derEncoded: der)  // the whole certificate must read, not only its key
            self.init(der: der, subjectPublicKeyInfo: try Self.subjectPublicKeyInfo(of: der))
        } catch {
            throw FaradayError(.tlsFailure, "The server's certificate could not be read: \(error).", underlying: error)
        }
    }

    /// A certificate swift-certificates made or validated.
    package init(_ certificate: Certificate) throws(FaradayError) {
        var serializer = DER.Serializer()
        do {
            try serializer.serialize(certificate)
            let der = serializer.serializedBytes
            self.init(der: der, subjectPublicKeyInfo: try Self.subjectPublicKeyInfo(of: der))
        } catch {
            throw FaradayError(.tlsFailure, "A certificate could not be encoded: \(error).", underlying: error)
        }
    }

    /// The encoded `subjectPublicKeyInfo` of `Certificate ::= SEQUENCE { tbsCertificate, … }`,
    /// `TBSCertificate ::= SEQUENCE { [0] version OPTIONAL, serialNumber, signature, issuer,
    /// validity, subject, subjectPublicKeyInfo, … }`.
    package static func subjectPublicKeyInfo(of der: [UInt8]) throws -> [UInt8] {
        guard case .constructed(let certificate) = try DER.parse(der).content,
            let tbs = Array(certificate.prefix(1)).first,
            case .constructed(let fields) = tbs.content
        else { throw ASN1Error.invalidASN1Object(reason: "not a certificate") }
        var fieldsAfterVersion = Array(fields)
        if let first = fieldsAfterVersion.first,
            first.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)
        {
            fieldsAfterVersion.removeFirst()
        }
        guard fieldsAfterVersion.count > 5, fieldsAfterVersion[5].identifier == .sequence else {
            throw ASN1Error.invalidASN1Object(reason: "no subjectPublicKeyInfo")
        }
        return Array(fieldsAfterVersion[5].encodedBytes)
    }
}
#endif
