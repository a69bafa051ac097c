/// JSON strings: the plain run read eight bytes at a time, escapes, and the UTF-8 check.
extension JSONParser.Reader {
    /// A string from its opening quote; the bytes must be UTF-8 and escapes well formed.
    mutating func string() throws(JSONParser.Failure) -> String {
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
            guard byte >= 0x20 else { throw JSONParser.Failure(.controlCharacter, at: index) }
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
                    throw JSONParser.Failure(.invalidUTF8, at: start)
                }
                return text
            case UInt8(ascii: "\\"): try unescape(into: &unescaped)
            case ..<0x20: throw JSONParser.Failure(.controlCharacter, at: index - 1)
            default: unescaped.append(byte)
            }
        }
        throw JSONParser.Failure(.unterminatedString, at: start - 1)
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

    private func text(_ utf8: UnsafeRawBufferPointer, at start: Int) throws(JSONParser.Failure) -> String {
        guard let text = String(utf8Validating: utf8) else { throw JSONParser.Failure(.invalidUTF8, at: start) }
        return text
    }

    /// One escape after its backslash, appended as UTF-8.
    private mutating func unescape(into output: inout [UInt8]) throws(JSONParser.Failure) {
        guard index < bytes.count else { throw JSONParser.Failure(.unterminatedString, at: index) }
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
                else { throw JSONParser.Failure(.loneSurrogate, at: escapeStart) }
                index += 2
                let low = UInt32(try hexQuad())
                guard (0xDC00..<0xE000).contains(low) else { throw JSONParser.Failure(.loneSurrogate, at: escapeStart) }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(code) else { throw JSONParser.Failure(.loneSurrogate, at: escapeStart) }
            output.append(contentsOf: scalar.utf8)
        default: throw JSONParser.Failure(.invalidEscape, at: escapeStart)
        }
    }

    private mutating func hexQuad() throws(JSONParser.Failure) -> UInt16 {
        guard bytes.count - index >= 4 else { throw JSONParser.Failure(.invalidEscape, at: index) }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw JSONParser.Failure(.invalidEscape, at: index)
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }
}
