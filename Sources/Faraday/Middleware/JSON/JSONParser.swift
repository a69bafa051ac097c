import Foundation

/// A strict RFC 8259 parser straight into ``JSON`` values, for the hot path of ``DecodeJSON``.
///
/// `JSON`'s `Decodable` conformance has to guess each value's kind through a decoder, throwing
/// and catching an error for every wrong guess; this reads the bytes once. It accepts only what
/// `JSONDecoder` accepts, and gives up (`nil`) on anything else, so that callers fall back to the
/// decoder for its error message (and for the encodings and extensions it also reads).
enum JSONParser {
    /// Nesting deeper than this is refused, as `JSONDecoder` does.
    static let maximumDepth = 512

    /// The value of a whole JSON text, or `nil` when it is not one (or is beyond this parser).
    static func parse(_ data: Data) -> JSON? {
        data.withUnsafeBytes { bytes in
            var reader = Reader(bytes: bytes)
            do {
                let value = try reader.value(depth: 0)
                reader.skipWhitespace()
                // Not `isAtEnd ? value : nil`: `JSON` is `ExpressibleByNilLiteral`, so that `nil`
                // would be `.null`.
                guard reader.isAtEnd else { return Optional<JSON>.none }
                return value
            } catch {
                return nil
            }
        }
    }

    private struct Invalid: Error {}

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        var isAtEnd: Bool { index >= bytes.count }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): index += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int) throws(Invalid) -> JSON {
            skipWhitespace()
            guard index < bytes.count else { throw Invalid() }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try object(depth: depth + 1)
            case UInt8(ascii: "["): return try array(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"):
                try literal("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try literal("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try literal("null")
                return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
            default: throw Invalid()
            }
        }

        private mutating func object(depth: Int) throws(Invalid) -> JSON {
            guard depth <= JSONParser.maximumDepth else { throw Invalid() }
            index += 1  // {
            var members: [String: JSON] = [:]
            skipWhitespace()
            if try consume(UInt8(ascii: "}")) { return .object(members) }
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw Invalid() }
                let key = try string()
                skipWhitespace()
                guard try consume(UInt8(ascii: ":")) else { throw Invalid() }
                let member = try value(depth: depth)
                // A repeated key keeps its first value, as JSONDecoder does.
                if members.index(forKey: key) == nil { members[key] = member }
                skipWhitespace()
                if try consume(UInt8(ascii: ",")) { continue }
                guard try consume(UInt8(ascii: "}")) else { throw Invalid() }
                return .object(members)
            }
        }

        private mutating func array(depth: Int) throws(Invalid) -> JSON {
            guard depth <= JSONParser.maximumDepth else { throw Invalid() }
            index += 1  // [
            var elements: [JSON] = []
            skipWhitespace()
            if try consume(UInt8(ascii: "]")) { return .array(elements) }
            while true {
                elements.append(try value(depth: depth))
                skipWhitespace()
                if try consume(UInt8(ascii: ",")) { continue }
                guard try consume(UInt8(ascii: "]")) else { throw Invalid() }
                return .array(elements)
            }
        }

        /// Consumes `byte` if it is next.
        private mutating func consume(_ byte: UInt8) throws(Invalid) -> Bool {
            guard index < bytes.count else { throw Invalid() }
            guard bytes[index] == byte else { return false }
            index += 1
            return true
        }

        private mutating func literal(_ text: StaticString) throws(Invalid) {
            let count = text.utf8CodeUnitCount
            guard bytes.count - index >= count else { throw Invalid() }
            for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] { throw Invalid() }
            index += count
        }

        /// A string from its opening quote; the bytes must be UTF-8 and escapes well formed.
        private mutating func string() throws(Invalid) -> String {
            index += 1  // "
            let start = index
            // The common case: no escapes, one validation of the bytes as they are.
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    defer { index += 1 }
                    return try text(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
                }
                if byte == UInt8(ascii: "\\") { break }
                guard byte >= 0x20 else { throw Invalid() }
                index += 1
            }
            var unescaped = Array(bytes[start..<index])
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    guard let text = unescaped.withUnsafeBytes(String.init(utf8Validating:)) else { throw Invalid() }
                    return text
                case UInt8(ascii: "\\"): try unescape(into: &unescaped)
                case ..<0x20: throw Invalid()
                default: unescaped.append(byte)
                }
            }
            throw Invalid()
        }

        private func text(_ utf8: UnsafeRawBufferPointer) throws(Invalid) -> String {
            guard let text = String(utf8Validating: utf8) else { throw Invalid() }
            return text
        }

        /// One escape after its backslash, appended as UTF-8.
        private mutating func unescape(into output: inout [UInt8]) throws(Invalid) {
            guard index < bytes.count else { throw Invalid() }
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(byte)
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "u"):
                var code = UInt32(try hexQuad())
                if (0xD800..<0xDC00).contains(code) {
                    // A high surrogate must be followed by an escaped low one.
                    guard bytes.count - index >= 2, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u")
                    else { throw Invalid() }
                    index += 2
                    let low = UInt32(try hexQuad())
                    guard (0xDC00..<0xE000).contains(low) else { throw Invalid() }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(code) else { throw Invalid() }
                output.append(contentsOf: scalar.utf8)
            default: throw Invalid()
            }
        }

        private mutating func hexQuad() throws(Invalid) -> UInt16 {
            guard bytes.count - index >= 4 else { throw Invalid() }
            var value: UInt16 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw Invalid()
                }
                value = value << 4 | UInt16(digit)
                index += 1
            }
            return value
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`: an `Int` when whole and in
        /// range, else a finite `Double`.
        private mutating func number() throws(Invalid) -> JSON {
            let start = index
            let isNegative = bytes[index] == UInt8(ascii: "-")
            if isNegative { index += 1 }
            guard index < bytes.count else { throw Invalid() }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
            } else {
                guard try digits() > 0 else { throw Invalid() }
            }
            var isWhole = true
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard try digits() > 0 else { throw Invalid() }
                isWhole = false
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                guard try digits() > 0 else { throw Invalid() }
                isWhole = false
            }
            let text = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
            if isWhole, let whole = Self.integer(text, isNegative: isNegative) { return .int(whole) }
            guard let double = Double(String(decoding: text, as: UTF8.self)), double.isFinite else { throw Invalid() }
            return .double(double)
        }

        /// Skips ASCII digits and returns how many there were.
        private mutating func digits() throws(Invalid) -> Int {
            let start = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - start
        }

        /// A whole number's value, `nil` when it does not fit in `Int`.
        private static func integer(_ text: UnsafeRawBufferPointer, isNegative: Bool) -> Int? {
            var value = 0
            for byte in text.dropFirst(isNegative ? 1 : 0) {
                let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
                let digit = Int(byte - UInt8(ascii: "0"))
                let (next, overflow2) =
                    isNegative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
                guard !overflow, !overflow2 else { return nil }
                value = next
            }
            return value
        }
    }
}

extension JSONDecoder {
    /// Decodes a ``JSON`` value: with ``JSONParser`` when this decoder's settings cannot change
    /// the result, falling back to the decoder itself (for its errors, and for what only it reads).
    package func decodeJSONValue(from data: Data) throws -> JSON {
        if case .useDefaultKeys = keyDecodingStrategy, case .throw = nonConformingFloatDecodingStrategy,
            let json = JSONParser.parse(data)
        {
            return json
        }
        return try decode(JSON.self, from: data)
    }
}
