/// Encodes parameters flat: an array repeats its name (`a=1&a=2`), and decoding gathers repeated
/// names into an array. Nested dictionaries, which the flat form cannot express, are written the
/// nested way.
public struct FlatParamsEncoder: ParamsEncoder {
    /// How spaces are written.
    public var spaceEncoding: SpaceEncoding
    /// Write the names in sorted order, for stable cache keys.
    public var sortsParams: Bool

    /// Creates a flat encoder.
    public init(spaceEncoding: SpaceEncoding = .plus, sortsParams: Bool = false) {
        self.spaceEncoding = spaceEncoding
        self.sortsParams = sortsParams
    }

    public func encode(_ params: Params) -> String {
        let nested = NestedParamsEncoder(spaceEncoding: spaceEncoding)
        var parts: [String] = []
        let entries = sortsParams ? params.entries.sorted { $0.name < $1.name } : params.entries
        for entry in entries {
            let key = QueryEscaping.escape(entry.name, space: spaceEncoding)
            switch entry.value {
            case .array(let values):
                for value in values { nested.append(value, key: key, to: &parts) }
            case let value:
                nested.append(value, key: key, to: &parts)
            }
        }
        return parts.joined(separator: "&")
    }

    public func decode(_ query: String) throws(FaradayError) -> Params {
        var params = Params()
        for (name, value) in QueryEscaping.pairs(query) {
            switch params[name] {
            case nil: params[name] = .string(value)
            case .array(let values): params[name] = .array(values + [.string(value)])
            case let first?: params[name] = .array([first, .string(value)])
            }
        }
        return params
    }
}
