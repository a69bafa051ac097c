#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An RFC 6570 URI template, expanded at all four levels: simple (`{var}`), reserved (`{+var}`),
/// fragment (`{#var}`), label (`{.var}`), path (`{/var}`), path-style parameters (`{;var}`),
/// form queries (`{?var}`, `{&var}`), prefixes (`{var:3}`) and explosion (`{list*}`).
///
/// ```swift
/// let search = try URITemplate("/orders{?status,page}")
/// try search.expand(["status": "shipped", "page": "2"])   // "/orders?status=shipped&page=2"
/// ```
///
/// Templated HAL links are expanded with it.
public struct URITemplate: Sendable, Hashable, CustomStringConvertible {
    /// A variable's value: a string, a list, or ordered name–value pairs.
    public enum Value: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
        ExpressibleByDictionaryLiteral
    {
        /// One string.
        case string(String)
        /// Several strings.
        case list([String])
        /// Name–value pairs, in order.
        case pairs([Pair])

        /// One name–value pair of ``pairs(_:)``.
        public struct Pair: Sendable, Hashable {
            /// The name.
            public var name: String
            /// The value.
            public var value: String

            /// Creates a pair.
            public init(_ name: String, _ value: String) {
                self.name = name
                self.value = value
            }
        }

        public init(stringLiteral value: String) { self = .string(value) }
        public init(arrayLiteral elements: String...) { self = .list(elements) }
        public init(dictionaryLiteral elements: (String, String)...) {
            self = .pairs(elements.map { Pair($0.0, $0.1) })
        }

        /// `true` for an empty list or empty pairs (which expand to nothing, like undefined).
        var isEmptyComposite: Bool {
            switch self {
            case .string: false
            case .list(let items): items.isEmpty
            case .pairs(let pairs): pairs.isEmpty
            }
        }
    }

    private enum Part: Sendable, Hashable {
        case literal(String)
        case expression(Operator, [VariableSpec])
    }

    private struct VariableSpec: Sendable, Hashable {
        let name: String
        let prefix: Int?
        let explode: Bool
    }

    /// The behaviour of an expression's operator (RFC 6570, appendix A).
    private struct Operator: Sendable, Hashable {
        let first: String
        let separator: String
        let named: Bool
        let ifEmpty: String
        let allowsReserved: Bool

        static func parse(_ character: Character?) -> Operator? {
            switch character {
            case nil: Operator(first: "", separator: ",", named: false, ifEmpty: "", allowsReserved: false)
            case "+": Operator(first: "", separator: ",", named: false, ifEmpty: "", allowsReserved: true)
            case "#": Operator(first: "#", separator: ",", named: false, ifEmpty: "", allowsReserved: true)
            case ".": Operator(first: ".", separator: ".", named: false, ifEmpty: "", allowsReserved: false)
            case "/": Operator(first: "/", separator: "/", named: false, ifEmpty: "", allowsReserved: false)
            case ";": Operator(first: ";", separator: ";", named: true, ifEmpty: "", allowsReserved: false)
            case "?": Operator(first: "?", separator: "&", named: true, ifEmpty: "=", allowsReserved: false)
            case "&": Operator(first: "&", separator: "&", named: true, ifEmpty: "=", allowsReserved: false)
            default: nil
            }
        }
    }

    /// The template as written.
    public let description: String
    private let parts: [Part]

    /// Parses a template.
    ///
    /// - Throws: ``FaradayError/Code/invalidRequest`` for an unclosed or empty expression, an
    ///   unknown operator, an invalid variable name or prefix.
    public init(_ template: String) throws(FaradayError) {
        description = template
        var parts: [Part] = []
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            if open > rest.startIndex { parts.append(.literal(String(rest[..<open]))) }
            guard let close = rest[open...].firstIndex(of: "}") else { throw Self.malformed(template, "an unclosed {") }
            parts.append(try Self.expression(rest[rest.index(after: open)..<close], in: template))
            rest = rest[rest.index(after: close)...]
        }
        if rest.contains("}") { throw Self.malformed(template, "a } without {") }
        if !rest.isEmpty { parts.append(.literal(String(rest))) }
        self.parts = parts
    }

    /// The names of the template's variables, in order.
    public var variableNames: [String] {
        parts.flatMap { part -> [String] in
            if case .expression(_, let specs) = part { return specs.map(\.name) }
            return []
        }
    }

    /// Expands the template; variables without a value (or with an empty list or pairs) are
    /// left out, as RFC 6570 says.
    ///
    /// - Throws: ``FaradayError/Code/invalidRequest`` for what RFC 6570 §2.4.1 makes an error:
    ///   a prefix modifier (`{keys:1}`) on a list or name–value pairs.
    public func expand(_ variables: [String: Value]) throws(FaradayError) -> String {
        var result = ""
        for part in parts {
            switch part {
            case .literal(let text): result += Self.encode(text, allowsReserved: true)
            case .expression(let op, let specs): result += try expand(op, specs, variables)
            }
        }
        return result
    }

    // MARK: Parsing

    private static func expression(_ body: Substring, in template: String) throws(FaradayError) -> Part {
        guard let firstCharacter = body.first else { throw malformed(template, "an empty expression") }
        var list = body
        var op = Operator.parse(nil)
        if let parsed = Operator.parse(firstCharacter) {
            op = parsed
            list = body.dropFirst()
        } else if "=,!@|".contains(firstCharacter) {
            throw malformed(template, "the reserved operator \(firstCharacter)")
        }
        guard let op else { throw malformed(template, "an unknown operator") }
        var specs: [VariableSpec] = []
        for item in list.split(separator: ",", omittingEmptySubsequences: false) {
            var name = item
            var prefix: Int?
            var explode = false
            if name.hasSuffix("*") {
                explode = true
                name = name.dropLast()
            } else if let colon = name.firstIndex(of: ":") {
                let digits = name[name.index(after: colon)...]
                guard let length = Int(digits), (1...9999).contains(length), digits.first != "0" else {
                    throw malformed(template, "an invalid prefix in \(item)")
                }
                prefix = length
                name = name[..<colon]
            }
            guard isVariableName(name) else { throw malformed(template, "an invalid variable name \"\(item)\"") }
            specs.append(VariableSpec(name: String(name), prefix: prefix, explode: explode))
        }
        return .expression(op, specs)
    }

    /// ALPHA, DIGIT, `_`, `.` (not first, last or doubled) and percent-encoded triplets.
    private static func isVariableName(_ name: Substring) -> Bool {
        guard !name.isEmpty, name.first != ".", name.last != ".", !name.contains("..") else { return false }
        var index = name.startIndex
        while index < name.endIndex {
            let character = name[index]
            if character == "%" {
                let hex = name[name.index(after: index)...].prefix(2)
                guard hex.count == 2, hex.allSatisfy(\.isHexDigit) else { return false }
                index = name.index(index, offsetBy: 3)
                continue
            }
            guard character.isASCII, character.isLetter || character.isNumber || character == "_" || character == "."
            else { return false }
            index = name.index(after: index)
        }
        return true
    }

    private static func malformed(_ template: String, _ problem: String) -> FaradayError {
        FaradayError(.invalidRequest, "The URI template \(template.debugDescription) is malformed: \(problem).")
    }

    // MARK: Expanding

    private func expand(
        _ op: Operator,
        _ specs: [VariableSpec],
        _ variables: [String: Value]
    ) throws(FaradayError)
        -> String
    {
        var pieces: [String] = []
        for spec in specs {
            guard let value = variables[spec.name], !value.isEmptyComposite else { continue }
            if spec.prefix != nil, case .string = value {
            } else if spec.prefix != nil {
                throw FaradayError(
                    .invalidRequest,
                    "The URI template \(description.debugDescription) cannot expand \(spec.name): a prefix modifier applies to a string, and its value is a list or pairs (RFC 6570 §2.4.1)."
                )
            }
            pieces.append(Self.expand(spec, value, op))
        }
        return pieces.isEmpty ? "" : op.first + pieces.joined(separator: op.separator)
    }

    private static func expand(_ spec: VariableSpec, _ value: Value, _ op: Operator) -> String {
        let encode = { (text: String) in Self.encode(text, allowsReserved: op.allowsReserved) }
        switch value {
        case .string(var text):
            if let prefix = spec.prefix { text = String(text.prefix(prefix)) }
            guard op.named else { return encode(text) }
            return spec.name + (text.isEmpty ? op.ifEmpty : "=" + encode(text))
        case .list(let items):
            if spec.explode {
                guard op.named else { return items.map(encode).joined(separator: op.separator) }
                return items.map { spec.name + ($0.isEmpty ? op.ifEmpty : "=" + encode($0)) }.joined(
                    separator: op.separator
                )
            }
            let joined = items.map(encode).joined(separator: ",")
            return op.named ? spec.name + "=" + joined : joined
        case .pairs(let pairs):
            if spec.explode {
                return pairs.map {
                    encode($0.name) + ($0.value.isEmpty && op.named ? op.ifEmpty : "=" + encode($0.value))
                }
                .joined(separator: op.separator)
            }
            let joined = pairs.flatMap { [encode($0.name), encode($0.value)] }.joined(separator: ",")
            return op.named ? spec.name + "=" + joined : joined
        }
    }

    /// Percent-encodes all but unreserved characters, or also keeps reserved characters and
    /// existing percent-encoded triplets.
    private static func encode(_ text: String, allowsReserved: Bool) -> String {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        let reserved = Set(":/?#[]@!$&'()*+,;=".utf8)
        let bytes = Array(text.utf8)
        var result = ""
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if unreserved.contains(byte) || (allowsReserved && reserved.contains(byte)) {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else if allowsReserved, byte == UInt8(ascii: "%"), index + 2 < bytes.count,
                Character(Unicode.Scalar(bytes[index + 1])).isHexDigit,
                Character(Unicode.Scalar(bytes[index + 2])).isHexDigit
            {
                result += String(decoding: bytes[index...(index + 2)], as: UTF8.self)
                index += 3
                continue
            } else {
                result += byte.percentEscaped
            }
            index += 1
        }
        return result
    }
}
