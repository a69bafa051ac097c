#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One pin: what a server's certificate must match.
///
/// ```swift
/// try CertificatePin.publicKeySHA256("sha256/47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=")
/// try CertificatePin.certificateSHA256("9F:86:D0:81:88:4C:7D:65:9A:2F:EA:A0:C5:5A:D0:15:…")
/// try CertificatePin.certificate(TLSCertificate(pem: pinnedPEM))
/// ```
///
/// Fingerprints are accepted as hex (upper or lower case, with or without `:` or spaces between
/// bytes) or base64, with an optional `sha256/` or `sha1/` prefix; a string that is neither, or of
/// the wrong length for its hash, throws ``FaradayError/Code/invalidRequest``.
public struct CertificatePin: Sendable, Hashable, CustomStringConvertible {
    private enum Kind: Hashable {
        case certificateSHA256([UInt8])
        case certificateSHA1([UInt8])
        case publicKeySHA256([UInt8])
        case certificate(TLSCertificate)
    }

    private let kind: Kind

    /// The SHA-256 of the whole certificate (DER), the fingerprint browsers and `openssl x509
    /// -fingerprint -sha256` show.
    public static func certificateSHA256(_ fingerprint: String) throws(FaradayError) -> CertificatePin {
        CertificatePin(kind: .certificateSHA256(try Fingerprint.parse(fingerprint, length: 32, prefix: "sha256/")))
    }

    /// The SHA-1 of the whole certificate (DER). Legacy: prefer a SHA-256 pin.
    public static func certificateSHA1(_ fingerprint: String) throws(FaradayError) -> CertificatePin {
        CertificatePin(kind: .certificateSHA1(try Fingerprint.parse(fingerprint, length: 20, prefix: "sha1/")))
    }

    /// The SHA-256 of the certificate's `SubjectPublicKeyInfo` (HPKP's `pin-sha256`, OkHttp's
    /// `sha256/…`): survives renewals that keep the key.
    public static func publicKeySHA256(_ fingerprint: String) throws(FaradayError) -> CertificatePin {
        CertificatePin(kind: .publicKeySHA256(try Fingerprint.parse(fingerprint, length: 32, prefix: "sha256/")))
    }

    /// A whole certificate, matched byte for byte.
    public static func certificate(_ certificate: TLSCertificate) -> CertificatePin {
        CertificatePin(kind: .certificate(certificate))
    }

    /// Whether `presented` matches this pin.
    public func matches(_ presented: PresentedCertificate) -> Bool {
        switch kind {
        case .certificateSHA256(let digest): presented.sha256 == digest
        case .certificateSHA1(let digest): presented.sha1 == digest
        case .publicKeySHA256(let digest): presented.publicKeySHA256 == digest
        case .certificate(let certificate): presented.certificate == certificate
        }
    }

    /// The certificate a whole-certificate pin holds; adapters may use it to find a leaf's issuer.
    public var pinnedCertificate: TLSCertificate? {
        if case .certificate(let certificate) = kind { certificate } else { nil }
    }

    public var description: String {
        switch kind {
        case .certificateSHA256(let digest): "certificate SHA-256 \(Fingerprint.hex(digest))"
        case .certificateSHA1(let digest): "certificate SHA-1 \(Fingerprint.hex(digest))"
        case .publicKeySHA256(let digest): "sha256/\(Fingerprint.base64(digest))"
        case .certificate(let certificate): "certificate of \(certificate.der.count) bytes"
        }
    }
}

/// A certificate the server presented, with the digests pins compare against. Adapters make these
/// (the core has no hash functions; adapters use their platform's).
public struct PresentedCertificate: Sendable, Hashable, CustomStringConvertible {
    /// The certificate.
    public let certificate: TLSCertificate
    /// SHA-256 of the certificate's DER.
    public let sha256: [UInt8]
    /// SHA-1 of the certificate's DER.
    public let sha1: [UInt8]
    /// SHA-256 of the certificate's `SubjectPublicKeyInfo`.
    public let publicKeySHA256: [UInt8]

    /// Creates a presented certificate from its digests.
    public init(_ certificate: TLSCertificate, sha256: [UInt8], sha1: [UInt8], publicKeySHA256: [UInt8]) {
        self.certificate = certificate
        self.sha256 = sha256
        self.sha1 = sha1
        self.publicKeySHA256 = publicKeySHA256
    }

    /// `sha256/<public key pin> (certificate SHA-256 AA:BB:…)`: both forms users pin by.
    public var description: String {
        "sha256/\(Fingerprint.base64(publicKeySHA256)) (certificate SHA-256 \(Fingerprint.hex(sha256)))"
    }
}

/// Reading and writing fingerprint strings.
enum Fingerprint {
    static func parse(_ text: String, length: Int, prefix: String) throws(FaradayError) -> [UInt8] {
        var text = text.trimmingWhitespace()
        if text.lowercased().hasPrefix(prefix) { text.removeFirst(prefix.count) }
        let compact = text.filter { $0 != ":" && $0 != " " }
        if compact.count == length * 2, let bytes = hexBytes(compact) { return bytes }
        if let data = Data(base64Encoded: text), data.count == length { return Array(data) }
        throw FaradayError(
            .invalidRequest,
            "\"\(text.prefix(100))\" is not a \(length)-byte fingerprint in hex or base64."
        )
    }

    private static func hexBytes(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count / 2)
        var high: UInt8?
        for character in text {
            guard let nibble = character.hexDigitValue.map(UInt8.init) else { return nil }
            if let first = high {
                bytes.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return bytes
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined(separator: ":")
    }

    static func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }
}
