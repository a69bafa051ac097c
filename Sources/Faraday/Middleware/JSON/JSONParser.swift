#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
    struct Reader {
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
