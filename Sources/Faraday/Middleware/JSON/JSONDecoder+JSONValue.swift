#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension JSONDecoder {
    /// Decodes a ``JSON`` value with ``JSONParser``, the authority on what is JSON: a text it
    /// refuses throws its ``JSONSyntaxError``. The decoder itself decodes only where its settings
    /// change the result (a key or non-conforming float strategy), after the parser has accepted
    /// the text.
    package func decodeJSONValue(from data: Data) throws -> JSON {
        let json = try JSONParser.parse(data)
        return changesJSONValues ? try decode(JSON.self, from: data) : json
    }

    /// ``decodeJSONValue(from:)`` with the value made when first read: the text is checked now,
    /// with the same errors. A decoder whose settings change the value decodes it now.
    func decodedJSON(from data: Data) throws -> DecodedJSON {
        if changesJSONValues { return DecodedJSON(try decodeJSONValue(from: data)) }
        try JSONParser.validate(data)
        return DecodedJSON(checked: data)
    }

    /// Whether a setting (a key strategy, or a non-conforming float strategy) makes the value
    /// this decoder reads differ from the parser's.
    private var changesJSONValues: Bool {
        if case .useDefaultKeys = keyDecodingStrategy, case .throw = nonConformingFloatDecodingStrategy {
            return false
        }
        return true
    }
}
