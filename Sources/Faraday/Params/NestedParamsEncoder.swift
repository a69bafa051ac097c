/// Encodes nested parameters the Rack and Rails way: `a[b]=c`, `a[]=1&a[]=2`, or with
/// ``arrayIndices`` `a[0]=1&a[1]=2`. Brackets are percent-encoded on the wire (`a%5Bb%5D=c`).
///
/// Decoding a repeated plain name keeps the last value (`a=1&a=2` reads as `a=2`); use
/// ``FlatParamsEncoder`` for repeated names.
public struct NestedParamsEncoder: ParamsEncoder {
    /// Write array elements with their index (`a[0]=x`) instead of `a[]=x`.
    public var arrayIndices: Bool
    /// How spaces are written.
    public var spaceEncoding: SpaceEncoding
    /// Write the top-level names in sorted order (Ruby Faraday's default), for stable cache keys.
    public var sortsParams: Bool
    /// The deepest nesting accepted when decoding; deeper keys are a parsing error.
    public var maxDepth: Int

    /// Creates a nested encoder.
    public init(
        arrayIndices: Bool = false,
        spaceEncoding: SpaceEncoding = .plus,
        sortsParams: Bool = false,
        maxDepth: Int = 32
    ) {
        self.arrayIndices = arrayIndices
        self.spaceEncoding = spaceEncoding
        self.sortsParams = sortsParams
        self.maxDepth = maxDepth
    }

    public func encode(_ params: Params) -> String {
        var parts: [String] = []
        let entries = sortsParams ? params.entries.sorted { $0.name < $1.name } : params.entries
        for entry in entries {
            append(entry.value, key: QueryEscaping.escape(entry.name, space: spaceEncoding), to: &parts)
        }
        return parts.joined(separator: "&")
    }

    /// Appends `key=value` pieces for a value under an already escaped key. Empty arrays and
    /// dictionaries write nothing.
    func append(_ value: Params.Value, key: String, to parts: inout [String]) {
        switch value {
        case .string(let string):
            parts.append(key + "=" + QueryEscaping.escape(string, space: spaceEncoding))
        case .array(let values):
            for (index, element) in values.enumerated() {
                append(element, key: key + (arrayIndices ? "%5B\(index)%5D" : "%5B%5D"), to: &parts)
            }
        case .dictionary(let params):
            for entry in params.entries {
                let name = QueryEscaping.escape(entry.name, space: spaceEncoding)
                append(entry.value, key: key + "%5B" + name + "%5D", to: &parts)
            }
        }
    }

    public func decode(_ query: String) throws(FaradayError) -> Params {
        var root = Params()
        for (name, value) in QueryEscaping.pairs(query) {
            let path = try keyPath(name)
            try insert(value, at: path[...], into: &root, fullName: name)
        }
        return Self.dehash(root)
    }

    /// `a[b][]` → `["a", "b", ""]`. A name that is not of that shape is one literal key.
    private func keyPath(_ name: String) throws(FaradayError) -> [String] {
        guard let open = name.firstIndex(of: "["), open != name.startIndex, name.hasSuffix("]") else {
            return [name]
        }
        var path = [String(name[..<open])]
        var rest = name[open...]
        while !rest.isEmpty {
            guard rest.first == "[", let close = rest.firstIndex(of: "]") else { return [name] }
            let key = rest[rest.index(after: rest.startIndex)..<close]
            guard !key.contains("[") else { return [name] }
            path.append(String(key))
            rest = rest[rest.index(after: close)...]
        }
        guard path.count <= maxDepth + 1 else {
            throw FaradayError(
                .parsingFailed,
                "The parameter \(name.prefix(64))… is nested deeper than \(maxDepth) levels."
            )
        }
        return path
    }

    private func insert(
        _ value: String,
        at path: ArraySlice<String>,
        into params: inout Params,
        fullName: String
    ) throws(FaradayError) {
        guard let name = path.first else { return }
        let rest = path.dropFirst()
        let existing = params[name]
        guard let next = rest.first else {
            params[name] = .string(value)
            return
        }
        if next.isEmpty {
            var array: [Params.Value]
            switch existing {
            case nil: array = []
            case .array(let values): array = values
            default: throw conflict(fullName)
            }
            let inner = rest.dropFirst()
            if let innerKey = inner.first {
                // `a[][b]=1&a[][c]=2` fills one dictionary until a key repeats, as Rack does.
                if case .dictionary(var last) = array.last, last[innerKey] == nil {
                    try insert(value, at: inner, into: &last, fullName: fullName)
                    array[array.count - 1] = .dictionary(last)
                } else {
                    var fresh = Params()
                    try insert(value, at: inner, into: &fresh, fullName: fullName)
                    array.append(.dictionary(fresh))
                }
            } else {
                array.append(.string(value))
            }
            params[name] = .array(array)
        } else {
            var nested: Params
            switch existing {
            case nil: nested = Params()
            case .dictionary(let inner): nested = inner
            default: throw conflict(fullName)
            }
            try insert(value, at: rest, into: &nested, fullName: fullName)
            params[name] = .dictionary(nested)
        }
    }

    private func conflict(_ name: String) -> FaradayError {
        FaradayError(
            .parsingFailed,
            "The parameter \(name.prefix(64)) mixes a value, an array and nested keys under one name."
        )
    }

    /// Dictionaries whose keys are all indices (`a[0]=x&a[1]=y`) become arrays in index order.
    private static func dehash(_ params: Params) -> Params {
        Params(params.entries.map { Params.Entry(name: $0.name, value: dehash($0.value)) })
    }

    private static func dehash(_ value: Params.Value) -> Params.Value {
        switch value {
        case .string: return value
        case .array(let values): return .array(values.map(dehash))
        case .dictionary(let params):
            let indexed = params.entries.compactMap { entry in
                entry.name.allSatisfy(\.isASCII) ? Int(entry.name).map { ($0, entry.value) } : nil
            }
            if !indexed.isEmpty, indexed.count == params.entries.count {
                return .array(indexed.sorted { $0.0 < $1.0 }.map { dehash($0.1) })
            }
            return .dictionary(dehash(params))
        }
    }
}
