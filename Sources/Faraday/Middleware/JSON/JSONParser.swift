import Foundation

/// The RFC 8259 parser: the authority on what ``DecodeJSON`` accepts, straight into ``JSON``
/// values. Its policy is written on ``JSONSyntaxError``.
enum JSONParser {
    /// Nesting deeper than this is refused, as `JSONDecoder` does.
    static let maximumDepth = 512

    /// The value of a whole JSON text.
    static func parse(_ data: Data) throws(JSONSyntaxError) -> JSON {
        try read(data, building: true)
    }

    /// Checks that `data` is one JSON text, as ``parse(_:)`` would, with the same error, but
    /// keeps no value: no array or dictionary is made, no member name hashed, and a string is made
    /// only to check it when it holds an escape or a non-ASCII byte.
    static func validate(_ data: Data) throws(JSONSyntaxError) {
        _ = try read(data, building: false)
    }

    /// The value of `data` when `building`; else a placeholder once the whole text is checked.
    private static func read(_ data: Data, building: Bool) throws(JSONSyntaxError) -> JSON {
        let result = data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Result<JSON, JSONSyntaxError> in
            var reader = Reader(bytes: bytes, building: building)
            do throws(Failure) {
                try reader.start()
                let value = try reader.value(depth: 0)
                reader.skipWhitespace()
                guard reader.isAtEnd else { throw Failure(.trailingData, at: reader.index) }
                return .success(value)
            } catch {
                return .failure(JSONSyntaxError(reason: error.reason.description, offset: error.offset, in: bytes))
            }
        }
        return try result.get()
    }

    /// Reads one text. Every check is made whether it builds or not; when it does not, arrays and
    /// objects come back empty and ASCII strings as `""`, so that checking allocates nothing for
    /// them.
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        let building: Bool
        var index = 0

        init(bytes: UnsafeRawBufferPointer, building: Bool) {
            self.bytes = bytes
            self.building = building
        }

        var isAtEnd: Bool { index >= bytes.count }

        /// Skips a UTF-8 byte-order mark; refuses UTF-16 and UTF-32 (a NUL among the first bytes).
        mutating func start() throws(Failure) {
            if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
            if bytes.prefix(4).contains(0) || bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) {
                throw Failure(.notUTF8, at: 0)
            }
        }

        /// The byte at `index`, or `nil` at the end.
        private var next: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): index += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int) throws(Failure) -> JSON {
            skipWhitespace()
            guard index < bytes.count else { throw Failure(.expected("a value", found: nil), at: index) }
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
            case let other: throw Failure(.expected("a value", found: other), at: index)
            }
        }

        private mutating func object(depth: Int) throws(Failure) -> JSON {
            guard depth <= JSONParser.maximumDepth else { throw Failure(.tooDeep, at: index) }
            index += 1  // {
            skipWhitespace()
            if consume(UInt8(ascii: "}")) { return .object([:]) }
            // Room for a small object's members at once: growing from empty allocates at the
            // first and at the second member.
            var members = [String: JSON](minimumCapacity: building ? 4 : 0)
            while true {
                skipWhitespace()
                guard next == UInt8(ascii: "\"") else {
                    throw Failure(.expected("a member name in quotes", found: next), at: index)
                }
                let key = try string()
                skipWhitespace()
                guard consume(UInt8(ascii: ":")) else { throw Failure(.expected("':'", found: next), at: index) }
                let member = try value(depth: depth)
                // A repeated key keeps its first value, as JSONDecoder does.
                if building, members.index(forKey: key) == nil { members[key] = member }
                skipWhitespace()
                if consume(UInt8(ascii: ",")) { continue }
                guard consume(UInt8(ascii: "}")) else { throw Failure(.expected("',' or '}'", found: next), at: index) }
                return .object(members)
            }
        }

        private mutating func array(depth: Int) throws(Failure) -> JSON {
            guard depth <= JSONParser.maximumDepth else { throw Failure(.tooDeep, at: index) }
            index += 1  // [
            var elements: [JSON] = []
            skipWhitespace()
            if consume(UInt8(ascii: "]")) { return .array(elements) }
            while true {
                let element = try value(depth: depth)
                if building { elements.append(element) }
                skipWhitespace()
                if consume(UInt8(ascii: ",")) { continue }
                guard consume(UInt8(ascii: "]")) else { throw Failure(.expected("',' or ']'", found: next), at: index) }
                return .array(elements)
            }
        }

        /// Consumes `byte` if it is next (not at the end: the caller says what it expected).
        private mutating func consume(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        private mutating func literal(_ text: StaticString) throws(Failure) {
            let count = text.utf8CodeUnitCount
            for offset in 0..<count
            where index + offset >= bytes.count || bytes[index + offset] != text.utf8Start[offset] {
                let found = index + offset < bytes.count ? bytes[index + offset] : nil
                throw Failure(.expected("'\(text)'", found: found), at: index + offset)
            }
            index += count
        }

        /// A string from its opening quote; the bytes must be UTF-8 and escapes well formed.
        private mutating func string() throws(Failure) -> String {
            index += 1  // "
            let start = index
            var isASCII = true
            // The common case: no escapes, one validation of the bytes as they are.
            skipPlainASCII()
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    defer { index += 1 }
                    // ASCII is valid UTF-8: checked without making the string.
                    if !building, isASCII { return "" }
                    return try text(UnsafeRawBufferPointer(rebasing: bytes[start..<index]), at: start)
                }
                if byte == UInt8(ascii: "\\") { break }
                guard byte >= 0x20 else { throw Failure(.controlCharacter, at: index) }
                index += 1
                // Eight at a time again after an ASCII byte; after a non-ASCII one, byte by byte
                // (more of them are likely to follow).
                if byte < 0x80 { skipPlainASCII() } else { isASCII = false }
            }
            var unescaped = Array(bytes[start..<index])
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    guard let text = unescaped.withUnsafeBytes(String.init(utf8Validating:)) else {
                        throw Failure(.invalidUTF8, at: start)
                    }
                    return text
                case UInt8(ascii: "\\"): try unescape(into: &unescaped)
                case ..<0x20: throw Failure(.controlCharacter, at: index - 1)
                default: unescaped.append(byte)
                }
            }
            throw Failure(.unterminatedString, at: start - 1)
        }

        /// Skips eight bytes at a time while none of them ends or changes a plain ASCII run of a
        /// string: no quote, backslash, control character or byte from 0x80. The byte loop reads
        /// whatever stops it.
        @inline(__always)
        private mutating func skipPlainASCII() {
            while bytes.count - index >= 8,
                !Self.hasStopByte(bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            {
                index += 8
            }
        }

        /// Whether any byte of `word` is a quote, a backslash, below 0x20 or from 0x80, in either
        /// byte order. The tests are the classic "has a byte below n" (n = 1 after an XOR, for
        /// "equals"; n = 0x20), exact for the word as a whole: a borrow can only flag a byte
        /// above one that truly matches.
        private static func hasStopByte(_ word: UInt64) -> Bool {
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highBits: UInt64 = 0x8080_8080_8080_8080
            func hasByte(below n: UInt64, in value: UInt64) -> Bool { (value &- ones &* n) & ~value & highBits != 0 }
            return word & highBits != 0 || hasByte(below: 0x20, in: word)
                || hasByte(below: 1, in: word ^ (ones &* 0x22))
                || hasByte(below: 1, in: word ^ (ones &* 0x5C))
        }

        private func text(_ utf8: UnsafeRawBufferPointer, at start: Int) throws(Failure) -> String {
            guard let text = String(utf8Validating: utf8) else { throw Failure(.invalidUTF8, at: start) }
            return text
        }

        /// One escape after its backslash, appended as UTF-8.
        private mutating func unescape(into output: inout [UInt8]) throws(Failure) {
            guard index < bytes.count else { throw Failure(.unterminatedString, at: index) }
            let escapeStart = index - 1
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
                    else { throw Failure(.loneSurrogate, at: escapeStart) }
                    index += 2
                    let low = UInt32(try hexQuad())
                    guard (0xDC00..<0xE000).contains(low) else { throw Failure(.loneSurrogate, at: escapeStart) }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(code) else { throw Failure(.loneSurrogate, at: escapeStart) }
                output.append(contentsOf: scalar.utf8)
            default: throw Failure(.invalidEscape, at: escapeStart)
            }
        }

        private mutating func hexQuad() throws(Failure) -> UInt16 {
            guard bytes.count - index >= 4 else { throw Failure(.invalidEscape, at: index) }
            var value: UInt16 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw Failure(.invalidEscape, at: index)
                }
                value = value << 4 | UInt16(digit)
                index += 1
            }
            return value
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`: an `Int` when whole and in
        /// range, else a finite `Double`.
        private mutating func number() throws(Failure) -> JSON {
            let start = index
            let isNegative = bytes[index] == UInt8(ascii: "-")
            if isNegative { index += 1 }
            guard index < bytes.count else { throw Failure(.invalidNumber, at: start) }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
            } else {
                guard try digits() > 0 else { throw Failure(.invalidNumber, at: start) }
            }
            var isWhole = true
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard try digits() > 0 else { throw Failure(.invalidNumber, at: start) }
                isWhole = false
            }
            let hasExponent =
                index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E"))
            if hasExponent {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                guard try digits() > 0 else { throw Failure(.invalidNumber, at: start) }
                isWhole = false
            }
            // Checking only: without an exponent, a number of at most 300 characters is a finite
            // `Double` at worst (infinity takes 309 digits before the point): no value is made.
            if !building, !hasExponent, index - start <= 300 { return .null }
            let text = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
            if isWhole, let whole = Self.integer(text, isNegative: isNegative) { return .int(whole) }
            guard let double = Double(String(decoding: text, as: UTF8.self)), double.isFinite else {
                throw Failure(.numberOutOfRange, at: start)
            }
            return .double(double)
        }

        /// Skips ASCII digits and returns how many there were.
        private mutating func digits() throws(Failure) -> Int {
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
