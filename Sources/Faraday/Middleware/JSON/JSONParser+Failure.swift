extension JSONParser {
    /// Why reading stopped, in the reader's terms; turned into a ``JSONSyntaxError`` once.
    enum Reason: CustomStringConvertible {
        case expected(String, found: UInt8?)
        case unterminatedString, controlCharacter, invalidEscape, loneSurrogate, invalidUTF8
        case invalidNumber, numberOutOfRange, tooDeep, trailingData, notUTF8

        var description: String {
            switch self {
            case .expected(let what, let found):
                let seen = found.map {
                    $0 >= 0x20 && $0 < 0x7F ? "'\(Character(Unicode.Scalar($0)))'" : "byte 0x\(String($0, radix: 16))"
                }
                return "expected \(what), found \(seen ?? "the end of the text")"
            case .unterminatedString: return "a string is not closed before the end of the text"
            case .controlCharacter: return "a control character in a string must be escaped"
            case .invalidEscape: return "an invalid escape sequence"
            case .loneSurrogate: return "a UTF-16 surrogate escape without its pair"
            case .invalidUTF8: return "a string is not valid UTF-8"
            case .invalidNumber: return "an invalid number"
            case .numberOutOfRange: return "a number beyond the range of Double"
            case .tooDeep: return "nesting deeper than \(JSONParser.maximumDepth) levels"
            case .trailingData: return "more after the end of the JSON text"
            case .notUTF8: return "the text is UTF-16 or UTF-32; JSON between systems is UTF-8 (RFC 8259 §8.1)"
            }
        }
    }

    /// Where reading stopped, and why.
    struct Failure: Error {
        let reason: Reason
        let offset: Int
        init(_ reason: Reason, at offset: Int) {
            self.reason = reason
            self.offset = offset
        }
    }
}
