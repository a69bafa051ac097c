import Foundation

extension Response {
    /// Decodes the final body as JSON into `type`.
    ///
    /// - Parameters:
    ///   - type: the type to decode.
    ///   - decoder: the decoder; by default the one ``DecodeJSON`` was configured with, or a
    ///     plain `JSONDecoder` when the stack has none.
    /// - Throws: the call's error, or ``FaradayError/Code/parsingFailed`` carrying the response and
    ///   the `DecodingError` (with its coding path).
    public func decode<Value: Decodable>(
        _ type: Value.Type,
        decoder: JSONDecoder? = nil
    ) async throws(FaradayError) -> Value {
        let env = try await value
        do {
            return try (decoder ?? env.jsonDecoder).decode(type, from: env.body)
        } catch {
            throw .parsingFailed("The response body could not be decoded as \(type)", env: env, underlying: error)
        }
    }
}
