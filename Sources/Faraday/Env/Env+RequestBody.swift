#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Env {
    /// Encodes a value body now, as the stack would further down: by the first of the stack's
    /// encoders (``EncodeJSON``, ``URLEncoded``, ``Multipart``…) that takes its kind, with that encoder's settings, or
    /// else by the body's default encoding. Bytes, streams and empty bodies are left as they are.
    ///
    /// For a middleware that must see the bytes that go on the wire (a signature, a checksum, an
    /// idempotency key) wherever it sits: above an encoder the body is still a value. Once encoded
    /// it stays encoded, so the encoders below leave it alone and the adapter sends those bytes.
    ///
    /// The encoders are tried in stack order, those above the caller included: one of those would
    /// already have encoded a value of its kind on the way down, so the first that takes the value
    /// is always the one below the caller that would have.
    ///
    /// - Throws: ``FaradayError/Code/encodingFailed`` when the value cannot be encoded.
    public mutating func encodeRequestBody() throws(FaradayError) {
        guard request.body.value != nil else { return }
        for encoder in bodyEncoders {
            try encoder.encodeBody(of: &request)
            if request.body.value == nil { return }
        }
        try request.encodeValueByDefault()
    }

    /// The request body's bytes, exactly as the adapter will send them: a value is encoded
    /// (``encodeRequestBody()``), a stream is read into memory and sent from there, so that what
    /// you read is what goes on the wire.
    ///
    /// ```swift
    /// func onRequest(_ env: inout Env) async throws {
    ///     let body = try await env.requestBodyBytes()
    ///     env.request.headers[.signature] = signature(of: body)
    /// }
    /// ```
    ///
    /// - Parameter limit: the most bytes a streamed body may hold in memory (16 MiB by default);
    ///   bytes and values are not limited.
    /// - Throws: ``FaradayError/Code/encodingFailed`` when a value cannot be encoded,
    ///   ``FaradayError/Code/bodyTooLarge`` past `limit`, ``FaradayError/Code/bodyNotReplayable``
    ///   for a one-shot stream already sent, or the stream's own failure.
    public mutating func requestBodyBytes(upTo limit: Int = 16 << 20) async throws(FaradayError) -> Data {
        try encodeRequestBody()
        if let bytes = request.body.bytesInMemory { return bytes }
        let data: Data
        do {
            data = try await request.body.collect(upTo: limit)
        } catch {
            throw FaradayError.wrapping(error, request: request)
        }
        request.body = .bytes(data, contentType: request.body.contentType)
        return data
    }
}
