#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes ``Params`` to a query string or form body and reads them back.
///
/// Two encoders ship: ``NestedParamsEncoder`` (`a[b]=c`, `a[]=1`, Rack and Rails style, the
/// default) and ``FlatParamsEncoder`` (`a=1&a=2`). Write your own by conforming to this protocol.
public protocol ParamsEncoder: Sendable {
    /// The encoded string, without a leading `?`.
    func encode(_ params: Params) -> String
    /// The parameters of an encoded string (a leading `?` is ignored).
    ///
    /// - Throws: ``FaradayError/Code/parsingFailed`` for a query that cannot be read as parameters.
    func decode(_ query: String) throws(FaradayError) -> Params
}

/// How a space is written in an encoded query.
public struct SpaceEncoding: Sendable, Hashable {
    let replacement: String

    /// `+`, as HTML forms and Ruby Faraday write it (the default).
    public static let plus = SpaceEncoding(replacement: "+")
    /// `%20`, as RFC 3986 writes it.
    public static let percent20 = SpaceEncoding(replacement: "%20")
}

/// The percent-encoding shared by the params encoders.
enum QueryEscaping {
    /// RFC 3986 unreserved characters, the only ones written as they are.
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    static func escape(_ string: String, space: SpaceEncoding) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(string.utf8.count)
        for byte in string.utf8 {
            if isUnreserved(byte) {
                bytes.append(byte)
            } else if byte == UInt8(ascii: " ") {
                bytes.append(contentsOf: space.replacement.utf8)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// An encoded query or form whose percent-encoded UTF-8 is re-encoded in `charset` (the
    /// characters it cannot hold written as `&#8364;`, as HTML forms write them); `nil` for UTF-8,
    /// for the encodings forms never use (UTF-16 and "replacement" mean UTF-8 there) and for one
    /// this platform cannot write.
    static func transcode(_ encoded: String, to charset: Charset) -> String? {
        guard !["UTF-8", "UTF-16LE", "UTF-16BE"].contains(charset.name), charset.isWritable else { return nil }
        var output: [UInt8] = []
        var run: [UInt8] = []  // the bytes of consecutive %XX escapes
        func flushRun() throws(FaradayError) {
            guard !run.isEmpty else { return }
            let text = String(decoding: run, as: UTF8.self)
            for byte in try charset.encode(text, unencodable: { "&#\($0.value);" }) { appendEscaped(byte) }
            run = []
        }
        func appendEscaped(_ byte: UInt8) {
            guard !isUnreserved(byte) else { return output.append(byte) }
            output.append(contentsOf: [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]])
        }
        let bytes = Array(encoded.utf8)
        var index = 0
        do {
            while index < bytes.count {
                if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                    let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
                {
                    run.append(high << 4 | low)
                    index += 3
                    continue
                }
                try flushRun()
                output.append(bytes[index])
                index += 1
            }
            try flushRun()
        } catch {
            return nil
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes `%XX` escapes and `+` (as a space, unless `plusIsSpace` is `false`). Invalid
    /// escapes are kept as they are; bytes that are not UTF-8 become U+FFFD.
    static func unescape(_ string: Substring, plusIsSpace: Bool = true) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(string.utf8.count)
        var iterator = Array(string.utf8)[...]
        while let byte = iterator.popFirst() {
            if plusIsSpace && byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), iterator.count >= 2,
                let high = hexValue(iterator[iterator.startIndex]),
                let low = hexValue(iterator[iterator.startIndex + 1])
            {
                bytes.append(high << 4 | low)
                iterator = iterator.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The `name=value` pairs of a query, unescaped; empty pieces are skipped.
    static func pairs(_ query: String) -> [(name: String, value: String)] {
        let trimmed = query.hasPrefix("?") ? query.dropFirst() : Substring(query)
        return trimmed.split(separator: "&", omittingEmptySubsequences: true).map { piece in
            guard let equals = piece.firstIndex(of: "=") else { return (unescape(piece), "") }
            return (unescape(piece[..<equals]), unescape(piece[piece.index(after: equals)...]))
        }
    }
}
