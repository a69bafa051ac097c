#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Parameters together with the encoding that places them in a request: HTTPTransport's
/// `HTTPRequestParameters`. A request may carry several sets; ``Request/apply(_:)`` merges and
/// encodes them by the rules in <doc:ParameterSets>.
///
/// ```swift
/// try request.apply([
///     ParameterSet(["first_name": "John"], encoding: .url),   // query string
///     ParameterSet(["salary": 100_000], encoding: .json),     // JSON body
/// ])
/// ```
public struct ParameterSet: Sendable {
    /// The names in the order they were first set.
    public private(set) var names: [String]
    private var values: [String: JSON]
    /// How the parameters are encoded.
    public var encoding: Encoding

    /// Creates a set; a repeated name keeps its first position and its last value.
    public init(_ parameters: KeyValuePairs<String, JSON> = [:], encoding: Encoding = .json) {
        self.names = []
        self.values = [:]
        self.encoding = encoding
        for (name, value) in parameters { self[name] = value }
    }

    /// The value of a parameter; setting `nil` removes it.
    public subscript(name: String) -> JSON? {
        get { values[name] }
        set {
            if newValue != nil, values[name] == nil { names.append(name) }
            if newValue == nil { names.removeAll { $0 == name } }
            values[name] = newValue
        }
    }

    /// `true` when the set has no parameters.
    public var isEmpty: Bool { names.isEmpty }

    /// The parameters as a JSON object.
    public var object: JSON { .object(values) }

    /// The parameters in order, as query or form parameters: numbers and booleans as text,
    /// `null` as an empty value, arrays and objects nested.
    public var params: Params {
        Params(names.compactMap { name in values[name].map { Params.Entry(name: name, value: Self.paramsValue($0)) } })
    }

    /// This set with `other`'s parameters on top (later keys win).
    func merging(_ other: ParameterSet) -> ParameterSet {
        var merged = self
        for name in other.names { merged[name] = other[name] }
        return merged
    }

    private static func paramsValue(_ json: JSON) -> Params.Value {
        switch json {
        case .null: .string("")
        case .bool(let value): .string(value ? "true" : "false")
        case .int(let value): .string(String(value))
        case .double(let value): .string(String(value))
        case .string(let value): .string(value)
        case .array(let elements): .array(elements.map(paramsValue))
        case .object(let members):
            .dictionary(
                Params(
                    members.keys.sorted().compactMap { key in
                        members[key].map { Params.Entry(name: key, value: paramsValue($0)) }
                    }
                )
            )
        }
    }
}

extension ParameterSet {
    /// Where and how a set's parameters go.
    public struct Encoding: Sendable {
        enum Kind: Sendable {
            case url, json, propertyList
            case custom(name: String, encode: @Sendable (inout Request, ParameterSet) throws -> Void)
        }

        let kind: Kind

        /// The query string, through the request's params encoder.
        public static let url = Encoding(kind: .url)
        /// A JSON body (`application/json`).
        public static let json = Encoding(kind: .json)
        /// An XML property-list body (`application/x-plist`).
        public static let propertyList = Encoding(kind: .propertyList)

        /// Your own format: `encode` receives the request (its URL, headers and body so far) and
        /// the merged parameters of every set with this `name`. Errors it throws fail the call.
        public static func custom(
            _ name: String,
            _ encode: @escaping @Sendable (inout Request, ParameterSet) throws -> Void
        ) -> Encoding {
            Encoding(kind: .custom(name: name, encode: encode))
        }

        /// Sets with equal keys merge: one key per built-in encoding, and one per custom name.
        var key: String {
            switch kind {
            case .url: "url"
            case .json: "json"
            case .propertyList: "propertyList"
            case .custom(let name, _): "custom:" + name
            }
        }
    }
}
