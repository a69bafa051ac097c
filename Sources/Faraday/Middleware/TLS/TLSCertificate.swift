#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An X.509 certificate as DER bytes, read from PEM or DER.
///
/// ```swift
/// let ca = try TLSCertificate(pem: String(contentsOfFile: "ca.pem", encoding: .utf8))
/// let roots = try TLSCertificate.certificates(pem: bundle)   // every certificate of a PEM bundle
/// ```
///
/// Only the structure is checked here (a DER `SEQUENCE` of three parts whose first holds a
/// `SubjectPublicKeyInfo`); adapters and TLS libraries check the rest when they use it.
public struct TLSCertificate: Sendable, Hashable, CustomStringConvertible {
    /// The certificate's DER encoding.
    public let der: [UInt8]
    /// The DER bytes of the certificate's `SubjectPublicKeyInfo`: what a `pin-sha256` pin hashes.
    public let subjectPublicKeyInfo: [UInt8]

    /// Reads a DER-encoded certificate; throws ``FaradayError/Code/invalidRequest`` for bytes that
    /// are not one.
    public init(der: some Sequence<UInt8>) throws(FaradayError) {
        let bytes = Array(der)
        guard let publicKeyInfo = try? DERReader.subjectPublicKeyInfo(of: bytes) else {
            throw FaradayError(.invalidRequest, "The bytes are not a DER-encoded X.509 certificate.")
        }
        self.der = bytes
        self.subjectPublicKeyInfo = publicKeyInfo
    }

    /// A certificate another parser already read (an adapter's X.509 library): its DER and the
    /// exact bytes of its `SubjectPublicKeyInfo`.
    package init(der: [UInt8], subjectPublicKeyInfo: [UInt8]) {
        self.der = der
        self.subjectPublicKeyInfo = subjectPublicKeyInfo
    }

    /// `TLSCertificate(<n> bytes)`: the bytes are not worth printing.
    public var description: String { "TLSCertificate(\(der.count) bytes)" }

    /// Reads the first certificate of a PEM text.
    public init(pem: String) throws(FaradayError) {
        guard let first = try Self.certificates(pem: pem).first else {
            throw FaradayError(.invalidRequest, "The PEM text holds no CERTIFICATE block.")
        }
        self = first
    }

    /// Reads every certificate of a PEM text, in order (a bundle of roots, or a chain).
    public static func certificates(pem: String) throws(FaradayError) -> [TLSCertificate] {
        try PEMBlock.blocks(in: pem, label: "CERTIFICATE").map { block throws(FaradayError) in
            try TLSCertificate(der: block)
        }
    }
}

/// The base64 blocks of a PEM text.
enum PEMBlock {
    /// The decoded bodies of every `-----BEGIN label-----` block.
    static func blocks(in text: String, label: String) throws(FaradayError) -> [[UInt8]] {
        let begin = "-----BEGIN \(label)-----"
        let end = "-----END \(label)-----"
        var blocks: [[UInt8]] = []
        var rest = Substring(text)
        while let start = rest.firstRange(of: begin) {
            guard let stop = rest[start.upperBound...].firstRange(of: end) else {
                throw FaradayError(.invalidRequest, "A PEM \(label) block has no END line.")
            }
            let body = rest[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }
            guard let bytes = Data(base64Encoded: String(body)) else {
                throw FaradayError(.invalidRequest, "A PEM \(label) block is not valid base64.")
            }
            blocks.append(Array(bytes))
            rest = rest[stop.upperBound...]
        }
        return blocks
    }

    /// Whether `text` holds a PEM block of any label.
    static func looksLikePEM(_ text: String) -> Bool { text.contains("-----BEGIN ") }
}

/// Just enough DER to find a certificate's parts: tags and lengths, bounds-checked.
enum DERReader {
    struct Malformed: Error {}

    /// One element: its tag, and where its content and the whole element end.
    private struct Element {
        let tag: UInt8
        let content: Range<Int>
        var end: Int { content.upperBound }
    }

    private static func element(in bytes: [UInt8], at start: Int, limit: Int) throws(Malformed) -> Element {
        guard start + 2 <= limit else { throw Malformed() }
        let tag = bytes[start]
        let first = Int(bytes[start + 1])
        var offset = start + 2
        var length = 0
        if first < 0x80 {
            length = first
        } else {
            let count = first & 0x7F
            // No indefinite lengths in DER, and no certificate needs more than 4 length bytes.
            guard (1...4).contains(count), offset + count <= limit else { throw Malformed() }
            for byte in bytes[offset..<offset + count] { length = length << 8 | Int(byte) }
            offset += count
        }
        guard length <= limit - offset else { throw Malformed() }
        return Element(tag: tag, content: offset..<offset + length)
    }

    /// The ranges of `tbsCertificate`, `signatureAlgorithm` and `signatureValue`.
    static func certificateParts(_ bytes: [UInt8]) throws(Malformed) -> [Range<Int>] {
        let certificate = try element(in: bytes, at: 0, limit: bytes.count)
        guard certificate.tag == 0x30, certificate.end == bytes.count else { throw Malformed() }
        var parts: [Range<Int>] = []
        var offset = certificate.content.lowerBound
        while offset < certificate.end {
            let part = try element(in: bytes, at: offset, limit: certificate.end)
            parts.append(offset..<part.end)
            offset = part.end
        }
        guard parts.count == 3, bytes[parts[0].lowerBound] == 0x30 else { throw Malformed() }
        return parts
    }

    /// The whole `subjectPublicKeyInfo` element of a certificate.
    static func subjectPublicKeyInfo(of bytes: [UInt8]) throws(Malformed) -> [UInt8] {
        let tbsRange = try certificateParts(bytes)[0]
        let tbs = try element(in: bytes, at: tbsRange.lowerBound, limit: tbsRange.upperBound)
        // TBSCertificate: [0] version (optional), serialNumber, signature, issuer, validity,
        // subject, subjectPublicKeyInfo, …
        var offset = tbs.content.lowerBound
        var index = 0
        while offset < tbs.end {
            let field = try element(in: bytes, at: offset, limit: tbs.end)
            if index == 0 && field.tag == 0xA0 {
                offset = field.end
                continue
            }
            if index == 5 {
                guard field.tag == 0x30 else { throw Malformed() }
                return Array(bytes[offset..<field.end])
            }
            index += 1
            offset = field.end
        }
        throw Malformed()
    }
}
