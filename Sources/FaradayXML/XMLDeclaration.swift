#if XML
/// An XML declaration (`<?xml version="1.0" encoding="…"?>`) read by the grammar of XML 1.0
/// (§2.8 `XMLDecl`, §4.3.3 `EncodingDecl`): pseudo-attributes `name Eq 'value'` separated by white
/// space, where `Eq` is `S? = S?` and `S` is space, tab, CR or LF, however many.
enum XMLDeclaration: Equatable {
    /// The declaration, and the encoding it names, if any.
    case read(encoding: String?)
    /// `<?xml` followed by white space starts a declaration that the grammar does not read: no
    /// `?>`, a value without quotes, a name without `=`…
    case unreadable

    /// Reads the declaration that `bytes` starts with; `nil` when they start with none (another
    /// processing instruction, such as `<?xml-stylesheet`, is not one).
    init?(_ bytes: ArraySlice<UInt8>) {
        let opening = Array("<?xml".utf8)
        guard bytes.starts(with: opening) else { return nil }
        var index = bytes.startIndex + opening.count
        guard index < bytes.endIndex, XMLSafetyCheck.isSpace(bytes[index]) || bytes[index] == UInt8(ascii: "?")
        else { return nil }
        func skipSpace() {
            while index < bytes.endIndex, XMLSafetyCheck.isSpace(bytes[index]) { index += 1 }
        }
        var encoding: String?
        while true {
            skipSpace()
            guard index < bytes.endIndex else {
                self = .unreadable
                return
            }
            if bytes[index...].starts(with: "?>".utf8) { break }
            let nameStart = index
            while index < bytes.endIndex, Self.isNameByte(bytes[index]) { index += 1 }
            let name = String(decoding: bytes[nameStart..<index], as: UTF8.self)
            skipSpace()
            guard !name.isEmpty, index < bytes.endIndex, bytes[index] == UInt8(ascii: "=") else {
                self = .unreadable
                return
            }
            index += 1
            skipSpace()
            guard index < bytes.endIndex, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'"),
                let close = bytes[(index + 1)...].firstIndex(of: bytes[index])
            else {
                self = .unreadable
                return
            }
            let value = String(decoding: bytes[(index + 1)..<close], as: UTF8.self)
            index = close + 1
            if name == "encoding" { encoding = value }
            // Pseudo-attributes are separated by white space.
            guard index < bytes.endIndex,
                XMLSafetyCheck.isSpace(bytes[index]) || bytes[index...].starts(with: "?>".utf8)
            else {
                self = .unreadable
                return
            }
        }
        self = .read(encoding: encoding)
    }

    /// A byte of a pseudo-attribute's name (`version`, `encoding`, `standalone`).
    private static func isNameByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
    }
}
#endif
