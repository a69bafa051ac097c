/// Query or form parameters: an ordered list of names with string, array or nested values.
///
/// ```swift
/// let params: Params = ["q": "swift", "tags": ["a", "b"], "page": ["size": "10"]]
/// NestedParamsEncoder().encode(params)  // q=swift&tags[]=a&tags[]=b&page[size]=10
/// FlatParamsEncoder().encode(["tags": ["a", "b"]])  // tags=a&tags=b
/// ```
public struct Params: Sendable, Hashable, ExpressibleByDictionaryLiteral, Sequence {
    /// One parameter.
    public struct Entry: Sendable, Hashable {
        /// The name.
        public var name: String
        /// The value.
        public var value: Value

        /// Creates an entry.
        public init(name: String, value: Value) {
            self.name = name
            self.value = value
        }
    }

    /// A parameter's value: a string, an array, or nested parameters.
    public indirect enum Value: Sendable, Hashable, ExpressibleByStringInterpolation, ExpressibleByArrayLiteral,
        ExpressibleByDictionaryLiteral
    {
        /// A single string.
        case string(String)
        /// Several values under one name (`a[]=1&a[]=2`, or `a=1&a=2` with the flat encoder).
        case array([Value])
        /// Nested parameters (`a[b]=c`).
        case dictionary(Params)

        public init(stringLiteral value: String) { self = .string(value) }
        public init(arrayLiteral elements: Value...) { self = .array(elements) }
        public init(dictionaryLiteral elements: (String, Value)...) {
            self = .dictionary(Params(elements.map { Entry(name: $0.0, value: $0.1) }))
        }

        /// The string, when the value is one.
        public var string: String? {
            if case .string(let string) = self { return string }
            return nil
        }
    }

    /// The entries in order.
    public private(set) var entries: [Entry]

    /// Creates parameters from entries.
    public init(_ entries: [Entry] = []) { self.entries = entries }

    public init(dictionaryLiteral elements: (String, Value)...) {
        self.init(elements.map { Entry(name: $0.0, value: $0.1) })
    }

    /// `true` when there are no entries.
    public var isEmpty: Bool { entries.isEmpty }

    /// The value of the first entry named `name`. Setting replaces every entry of that name (in the
    /// place of the first) or appends; setting `nil` removes them.
    public subscript(name: String) -> Value? {
        get { entries.first { $0.name == name }?.value }
        set {
            let position = entries.firstIndex { $0.name == name } ?? entries.count
            entries.removeAll { $0.name == name }
            if let newValue { entries.insert(Entry(name: name, value: newValue), at: position) }
        }
    }

    /// Adds an entry after the others, keeping any entries of the same name.
    public mutating func append(_ value: Value, forName name: String) {
        entries.append(Entry(name: name, value: value))
    }

    /// These parameters with `overrides` on top: an entry of `overrides` replaces the entries of
    /// the same name here; the others are kept in order.
    public func merging(_ overrides: Params) -> Params {
        let overridden = Set(overrides.entries.map(\.name))
        return Params(entries.filter { !overridden.contains($0.name) } + overrides.entries)
    }

    public func makeIterator() -> IndexingIterator<[Entry]> { entries.makeIterator() }
}

extension Params: CustomReflectable {
    /// The parameters as a query, credential values (`access_token`, `api_key`, `user[password]`…)
    /// hidden by ``Redaction``, for `print` and `dump`.
    public var customMirror: Mirror {
        let query = Redaction().redacting(urlText: "?" + NestedParamsEncoder().encode(self))
        return Mirror(self, children: ["query": String(query.dropFirst())], displayStyle: .struct)
    }
}
