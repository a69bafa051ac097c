#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Small text operations on UTF-8 bytes, for header values, JSON and event streams: header syntax
/// is ASCII, and Foundation's `CharacterSet` trimming, Unicode case mapping and the generic
/// `String(validating:)` cost microseconds per call on the hot path.
extension String {
    /// Without leading and trailing spaces and tabs (HTTP's optional whitespace, RFC 9110 §5.6.3).
    package var trimmingHTTPWhitespace: Substring { self[...].trimmingHTTPWhitespace }

    /// With ASCII letters lowercased; other characters are left as they are.
    package var lowercasedASCII: String {
        utf8.contains(where: { HTTPText.lowercased($0) != $0 }) ? self[...].lowercasedASCII : self
    }

    /// Lowercased as `lowercased()` does, without its cost when the text is ASCII (hosts,
    /// schemes and domains nearly always are).
    package var lowercasedCheaply: String {
        utf8.allSatisfy { $0 < 0x80 } ? lowercasedASCII : lowercased()
    }

    /// `bytes` as a string when they are valid UTF-8, else `nil`: what `String(validating:)`
    /// does, without the generic dispatch that makes it slow on raw buffers.
    package init?(utf8Validating bytes: UnsafeRawBufferPointer) {
        let decoded = String(decoding: bytes, as: UTF8.self)  // invalid bytes become U+FFFD
        guard decoded.utf8.elementsEqual(bytes) else { return nil }
        self = decoded
    }

    /// Whether the two hold the same UTF-8 bytes. `==` compares by canonical equivalence (a
    /// decomposed `é` equals a precomposed one), and `utf8.elementsEqual` walks byte by byte
    /// through the generic iterator; this compares the bytes in one go.
    package func hasSameUTF8(as other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        let equal = utf8.withContiguousStorageIfAvailable { left in
            other.utf8.withContiguousStorageIfAvailable { right in
                guard let leftBytes = left.baseAddress, let rightBytes = right.baseAddress else { return true }
                return memcmp(leftBytes, rightBytes, left.count) == 0
            }
        }
        return (equal ?? nil) ?? utf8.elementsEqual(other.utf8)
    }

    /// The UTF-8 bytes as `Data`, copied in one go.
    package var utf8Data: Data {
        var text = self
        return text.withUTF8 { Data($0) }
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (HTTP's optional whitespace, RFC 9110 §5.6.3).
    package var trimmingHTTPWhitespace: Substring {
        let isText = { (byte: UInt8) in byte != UInt8(ascii: " ") && byte != UInt8(ascii: "\t") }
        guard let first = utf8.firstIndex(where: isText), let last = utf8.lastIndex(where: isText) else {
            return self[endIndex...]
        }
        return self[first..<utf8.index(after: last)]
    }

    /// With ASCII letters lowercased; other characters are left as they are.
    package var lowercasedASCII: String {
        guard utf8.contains(where: { HTTPText.lowercased($0) != $0 }) else { return String(self) }
        // Written in place: no intermediate array, and no allocation at all for a short word.
        return String(unsafeUninitializedCapacity: utf8.count) { buffer in
            for (offset, byte) in utf8.enumerated() { buffer[offset] = HTTPText.lowercased(byte) }
            return utf8.count
        }
    }

    /// Whether the two are equal ignoring the case of ASCII letters.
    package func equalsIgnoringASCIICase(_ other: String) -> Bool {
        utf8.elementsEqual(other.utf8) { HTTPText.lowercased($0) == HTTPText.lowercased($1) }
    }
}

package enum HTTPText {
    package static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}

extension FixedWidthInteger {
    /// The number that `text` writes with ASCII digits only: no sign, no spaces, not empty
    /// (`Int("+5")` would take the sign); `nil` otherwise or when it does not fit.
    package init?(asciiDigits text: some StringProtocol) {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        self.init(text, radix: 10)
    }
}
