#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Response {
    /// Decodes the final body as JSON into `type`.
    ///
    /// - Parameters:
    ///   - type: the type to decode.
    ///   - decoder: the decoder; by default the one ``DecodeJSON`` was configured with, or a
    ///     plain `JSONDecoder` when the stack has none.
    /// - Throws: the call's error, or ``FaradayError/Code/parsingFailed`` carrying the response and
    ///   the `DecodingError` (with its coding path).
    ///
    /// It does not look at the status: without ``RaiseError`` in the stack (or a typed
    /// ``Endpoint``, which checks it), a `404` whose body is not a `type` fails as
    /// `parsingFailed`, with no error document; with it, as `resourceNotFound` with the document.
    public func decode<Value: Decodable>(
        _ type: Value.Type,
        decoder: JSONDecoder? = nil
    ) async throws(FaradayError) -> Value {
        try await value.decode(type, decoder: decoder)
    }
}

extension Env {
    /// Decodes this completion's body as JSON into `type` (a page of ``LinkPages``, a frame), with
    /// `decoder` or the one ``DecodeJSON`` was configured with.
    ///
    /// - Throws: ``FaradayError/Code/parsingFailed`` carrying the response and the `DecodingError`.
    public func decode<Value: Decodable>(
        _ type: Value.Type,
        decoder: JSONDecoder? = nil
    ) throws(FaradayError)
        -> Value
    {
        do {
            return try (decoder ?? jsonDecoder).decode(type, from: body)
        } catch {
            throw .parsingFailed("The response body could not be decoded as \(type)", env: self, underlying: error)
        }
    }
}
