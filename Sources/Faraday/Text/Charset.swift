#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(FoundationEssentials) && canImport(Glibc)
import Glibc
#endif

/// A character encoding, named as a `charset` parameter names it and read as browsers read it:
/// the labels and single-byte tables of the WHATWG Encoding Standard, so that `latin1`,
/// `iso-8859-1` and `ascii` all mean windows-1252.
///
/// ```swift
/// let charset = Charset(label: "ISO-8859-1")   // windows-1252
/// let text = try charset?.decode(body)
/// ```
///
/// UTF-8, UTF-16 and the 28 single-byte encodings are decoded here, the same on every platform.
/// The Chinese, Japanese and Korean encodings (Shift_JIS, EUC-JP, ISO-2022-JP, GBK, gb18030, Big5,
/// EUC-KR) are decoded by Foundation; where a platform's Foundation cannot (Linux's has no
/// EUC-JP), decoding fails with ``FaradayError/Code/unsupportedCharset``. On Linux the core
/// builds on FoundationEssentials, which has no converters of its own for them: in a program that
/// does not link Foundation (a server on NIOAdapter, with the `URLSession` trait off), the first
/// use of one of these charsets loads Foundation (`libFoundation.so`), so that a program that
/// never meets one never loads it. A program linked with `-static-stdlib` that does not use
/// Foundation gets `unsupportedCharset` for them.
public struct Charset: Sendable, Hashable, CustomStringConvertible {
    /// The encoding's name in the Encoding Standard: `UTF-8`, `windows-1252`, `Shift_JIS`.
    public let name: String

    private init(name: String) { self.name = name }

    /// The encoding a label names (any of the standard's labels, in any case, with surrounding
    /// ASCII whitespace), or `nil` when it names none.
    public init?(label: String) {
        let whitespace: Set<UInt8> = [0x09, 0x0A, 0x0C, 0x0D, 0x20]
        let bytes = label.utf8.drop(while: whitespace.contains).reversed().drop(while: whitespace.contains).reversed()
        guard let name = WHATWGEncodingTables.labels[String(decoding: bytes, as: UTF8.self).lowercasedASCII] else {
            return nil
        }
        self.name = name
    }

    /// UTF-8.
    public static let utf8 = Charset(name: "UTF-8")
    /// UTF-16, little-endian.
    public static let utf16LittleEndian = Charset(name: "UTF-16LE")
    /// UTF-16, big-endian.
    public static let utf16BigEndian = Charset(name: "UTF-16BE")
    /// windows-1252, which browsers read for `iso-8859-1`, `latin1` and `ascii` too.
    public static let windows1252 = Charset(name: "windows-1252")

    public var description: String { name }

    // MARK: Decoding

    /// Decodes `bytes`, as the Encoding Standard's "decode" does: a byte-order mark at the start
    /// names the encoding (and is dropped), else this one is used.
    ///
    /// - Throws: ``FaradayError/Code/parsingFailed`` for bytes that are not valid in the encoding;
    ///   ``FaradayError/Code/unsupportedCharset`` for an encoding this platform cannot decode.
    public func decode(_ bytes: Data) throws(FaradayError) -> String {
        let (charset, bomLength) = Self.byteOrderMark(of: bytes) ?? (self, 0)
        return try charset.decodeWithoutBOM(bytes.dropFirst(bomLength))
    }

    /// The encoding a byte-order mark names, and the mark's length.
    private static func byteOrderMark(of bytes: Data) -> (Charset, Int)? {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return (.utf8, 3) }
        if bytes.starts(with: [0xFE, 0xFF]) { return (.utf16BigEndian, 2) }
        if bytes.starts(with: [0xFF, 0xFE]) { return (.utf16LittleEndian, 2) }
        return nil
    }

    private func decodeWithoutBOM(_ bytes: Data) throws(FaradayError) -> String {
        switch name {
        case "UTF-8":
            guard let text = bytes.withUnsafeBytes({ String(utf8Validating: $0) }) else { throw invalid("UTF-8") }
            return text
        case "UTF-16LE", "UTF-16BE":
            return try decodeUTF16(bytes, bigEndian: name == "UTF-16BE")
        case "x-user-defined":
            return String(
                String.UnicodeScalarView(
                    bytes.map { Unicode.Scalar($0 < 0x80 ? UInt32($0) : 0xF700 + UInt32($0)) ?? "\u{FFFD}" }
                )
            )
        case "replacement":
            throw FaradayError(
                .unsupportedCharset,
                "The charset names the \"replacement\" encoding (\(name)): one browsers refuse to decode, as it is used to attack them."
            )
        default:
            if let table = WHATWGEncodingTables.singleByte[name] { return try decodeSingleByte(bytes, table: table) }
            return try decodeWithFoundation(bytes)
        }
    }

    private func decodeUTF16(_ bytes: Data, bigEndian: Bool) throws(FaradayError) -> String {
        guard bytes.count % 2 == 0 else { throw invalid("\(name): an odd number of bytes") }
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let first = UInt16(bytes[index])
            let second = UInt16(bytes[index + 1])
            units.append(bigEndian ? first << 8 | second : second << 8 | first)
            index += 2
        }
        let text = String(decoding: units, as: UTF16.self)  // an unpaired surrogate becomes U+FFFD
        guard text.utf16.elementsEqual(units) else { throw invalid("\(name): an unpaired surrogate") }
        return text
    }

    private func decodeSingleByte(_ bytes: Data, table: [UInt16]) throws(FaradayError) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.reserveCapacity(bytes.count)
        for (offset, byte) in bytes.enumerated() {
            let point = byte < 0x80 ? UInt32(byte) : UInt32(table[Int(byte) - 0x80])
            guard point != 0xFFFF, let scalar = Unicode.Scalar(point) else {
                throw invalid(
                    "\(name): the byte 0x\(String(byte, radix: 16, uppercase: true)) at offset \(offset) stands for no character"
                )
            }
            scalars.append(scalar)
        }
        return String(scalars)
    }

    private func decodeWithFoundation(_ bytes: Data) throws(FaradayError) -> String {
        guard let encoding = foundationEncoding, Self.foundationDecodes(encoding) else { throw unsupported("decode") }
        guard let text = String(data: bytes, encoding: encoding) else { throw invalid(name) }
        return text
    }

    // MARK: Encoding

    /// Encodes `text` in this encoding.
    ///
    /// - Throws: ``FaradayError/Code/encodingFailed`` for a character the encoding has no bytes
    ///   for; ``FaradayError/Code/unsupportedCharset`` for an encoding this platform cannot write.
    public func encode(_ text: String) throws(FaradayError) -> Data {
        try encode(text, unencodable: nil)
    }

    /// Encodes `text`, writing each character the encoding has no bytes for with `unencodable`
    /// (as HTML forms write `&#8364;`), or failing when it is `nil`.
    func encode(_ text: String, unencodable: ((Unicode.Scalar) -> String)?) throws(FaradayError) -> Data {
        switch name {
        case "UTF-8":
            return Data(text.utf8)
        case "UTF-16LE", "UTF-16BE":
            var data = Data(capacity: text.utf16.count * 2)
            for unit in text.utf16 {
                let (high, low) = (UInt8(unit >> 8), UInt8(unit & 0xFF))
                data.append(contentsOf: name == "UTF-16BE" ? [high, low] : [low, high])
            }
            return data
        case "replacement":
            throw unsupported("encode")
        default:
            var data = Data()
            for scalar in text.unicodeScalars {
                if scalar.isASCII {
                    data.append(UInt8(scalar.value))
                } else if let bytes = encodeNonASCII(scalar) {
                    data.append(contentsOf: bytes)
                } else if let unencodable {
                    data.append(contentsOf: unencodable(scalar).utf8)
                } else {
                    guard isWritable else { throw unsupported("encode") }
                    throw FaradayError(
                        .encodingFailed,
                        "The text has a character (U+\(String(scalar.value, radix: 16, uppercase: true))) that \(name) cannot write."
                    )
                }
            }
            return data
        }
    }

    /// The bytes of one non-ASCII character, or `nil` when the encoding has none.
    private func encodeNonASCII(_ scalar: Unicode.Scalar) -> [UInt8]? {
        if name == "x-user-defined" {
            return (0xF780...0xF7FF).contains(scalar.value) ? [UInt8(scalar.value - 0xF700)] : nil
        }
        if let table = WHATWGEncodingTables.singleByte[name] {
            guard scalar.value < 0xFFFF, let index = table.firstIndex(of: UInt16(scalar.value)) else { return nil }
            return [UInt8(0x80 + index)]
        }
        guard let encoding = foundationEncoding, let data = String(scalar).data(using: encoding) else { return nil }
        // GBK is gb18030 without its four-byte sequences.
        return name == "GBK" && data.count == 4 ? nil : Array(data)
    }

    /// Whether this platform can write this encoding at all (Linux's Foundation cannot write
    /// EUC-JP).
    var isWritable: Bool {
        name != "replacement" && (foundationEncoding.map(Self.foundationEncodes) ?? true)
    }

    // MARK: Foundation's encodings

    /// Foundation's encoding for the Chinese, Japanese and Korean encodings, which it decodes and
    /// writes; asking for one loads Foundation where needed (``foundationIsLoaded``).
    private var foundationEncoding: String.Encoding? {
        let encoding: String.Encoding? =
            switch name {
            case "Shift_JIS": .shiftJIS
            case "EUC-JP": .japaneseEUC
            case "ISO-2022-JP": .iso2022JP
            // The standard reads GBK with its gb18030 decoder, and EUC-KR as Windows' code page 949.
            case "GBK", "gb18030": String.Encoding(rawValue: 0x8000_0632)  // kCFStringEncodingGB_18030_2000
            case "Big5": String.Encoding(rawValue: 0x8000_0A03)  // kCFStringEncodingBig5
            case "EUC-KR": String.Encoding(rawValue: 0x8000_0422)  // kCFStringEncodingDOSKorean
            default: nil
            }
        if encoding != nil { _ = Self.foundationIsLoaded }
        return encoding
    }

    /// Whether Foundation is loaded, whose converters FoundationEssentials decodes and writes the
    /// CJK encodings with: on Linux, a program that uses no Foundation of its own (a server on
    /// NIOAdapter) loads it here, the first time it meets one of them, and never closes it; one
    /// that links Foundation finds it loaded. Only next to a shared FoundationEssentials: a
    /// program linked with `-static-stdlib` carries its own, which a shared Foundation would not
    /// serve.
    private static let foundationIsLoaded: Bool = {
        #if canImport(FoundationEssentials) && canImport(Glibc)
        guard dlopen("libFoundationEssentials.so", RTLD_NOW | RTLD_NOLOAD) != nil else { return false }
        return dlopen("libFoundation.so", RTLD_NOW | RTLD_GLOBAL) != nil
        #else
        return true
        #endif
    }()

    /// Foundation's encodings of the standard's CJK encodings.
    private static let foundationEncodings = ["Shift_JIS", "EUC-JP", "ISO-2022-JP", "gb18030", "Big5", "EUC-KR"]
        .compactMap { Charset(name: $0).foundationEncoding }

    /// Those this platform's Foundation decodes at all (Linux's lacks some), asked once: ASCII,
    /// which every one of them writes as itself, must come back.
    private static let foundationDecodable = Set(
        foundationEncodings.filter { String(data: Data("ok".utf8), encoding: $0) == "ok" }.map(\.rawValue)
    )

    /// Those this platform's Foundation writes at all, asked the same way.
    private static let foundationWritable = Set(
        foundationEncodings.filter { "ok".data(using: $0) == Data("ok".utf8) }.map(\.rawValue)
    )

    private static func foundationDecodes(_ encoding: String.Encoding) -> Bool {
        foundationDecodable.contains(encoding.rawValue)
    }

    private static func foundationEncodes(_ encoding: String.Encoding) -> Bool {
        foundationWritable.contains(encoding.rawValue)
    }

    // MARK: Errors

    private func invalid(_ what: String) -> FaradayError {
        FaradayError(.parsingFailed, "The text is not valid \(what).")
    }

    private func unsupported(_ verb: String) -> FaradayError {
        FaradayError(.unsupportedCharset, "This platform's Foundation cannot \(verb) \(name).")
    }
}
