/// A JSON value of the HTTP caching suite's test definitions (http-tests/cache-tests), whose
/// fields mix types: a header is `["Date", 0]`, `["ETag", "\"a\"", false]` or `"Name"`. The test
/// servers do not use Faraday's own `JSON`: what checks the client reads the suite with code of
/// its own.
public enum SuiteValue: Decodable, Sendable, Hashable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case null
    case array([SuiteValue])
    case object([String: SuiteValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let int = try? container.decode(Int.self) {
            self = .int(int)
        } else if let double = try? container.decode(Double.self) {
            self = .double(double)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([SuiteValue].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: SuiteValue].self))
        }
    }

    /// The member `key` of an object; `nil` when absent (a present `null` is ``null``).
    public subscript(key: String) -> SuiteValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The string, or `nil`.
    public var string: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// The integer, or `nil`.
    public var int: Int? {
        if case .int(let int) = self { return int }
        return nil
    }

    /// `true` only for `true`.
    public var isTrue: Bool { self == .bool(true) }

    /// The elements of an array; empty for anything else.
    public var elements: [SuiteValue] {
        if case .array(let elements) = self { return elements }
        return []
    }

    /// The value as a header's value text: a string as it is, a number in decimal.
    public var text: String {
        switch self {
        case .string(let string): string
        case .int(let int): String(int)
        case .double(let double): String(double)
        case .bool(let bool): String(bool)
        case .null: "null"
        case .array(let elements): elements.map(\.text).joined(separator: ", ")
        case .object: "{…}"
        }
    }
}
