#if XML
import Faraday
import Foundation
import XMLCoder

/// Asks for XML and checks XML responses, so that ``Faraday/Env/decodeXML(_:)`` and
/// ``Faraday/Response/decodeXML(_:)`` can decode them into your `Decodable` types.
///
/// ```swift
/// builder.use(DecodeXML.Handler())
/// let order = try await connection.get("orders/7").decodeXML(Order.self)
/// ```
///
/// It adds `application/xml` and `text/xml` to `Accept`, and checks a completion whose content
/// type is `application/xml`, `text/xml` or `application/*+xml` (or one of
/// ``Handler/contentTypes``), except for 204, 205 and 304 responses, HEAD requests and empty
/// bodies. Hostile XML is refused before anything decodes it (see ``XMLLimits``): a document
/// type declaration (where entity expansion bombs and external entities live), nesting deeper
/// than 256 levels, or a document over 16 MiB. Such a body, or one that is not well-formed, fails
/// the call with `parsingFailed` (`bodyTooLarge` for the size), carrying the response.
public struct DecodeXML: Middleware {
    /// The app below.
    public let app: any App
    /// The handler's settings.
    public let handler: Handler

    /// Builds ``DecodeXML``.
    public struct Handler: Faraday.Handler {
        /// Makes the decoder for each body (XMLCoder's decoder is a class with settings, not safe
        /// to share across threads): set its strategies here.
        public var makeDecoder: @Sendable () -> XMLDecoder
        /// Extra media types to check and decode, besides `application/xml`, `text/xml` and
        /// `application/*+xml`.
        public var contentTypes: [String]
        /// The limits that refuse hostile documents.
        public var limits: XMLLimits

        /// Creates the handler.
        public init(
            contentTypes: [String] = [],
            limits: XMLLimits = XMLLimits(),
            makeDecoder: @escaping @Sendable () -> XMLDecoder = { XMLDecoder() }
        ) {
            self.makeDecoder = makeDecoder
            self.contentTypes = contentTypes
            self.limits = limits
        }

        public func build(app: any App) -> any Middleware { DecodeXML(app: app, handler: self) }

        func decodes(_ mediaType: String?) -> Bool {
            guard let mediaType else { return false }
            if mediaType == "application/xml" || mediaType == "text/xml" || contentTypes.contains(mediaType) {
                return true
            }
            return mediaType.hasPrefix("application/") && mediaType.hasSuffix("+xml")
        }
    }

    public func onRequest(_ env: inout Env) async throws {
        env.request.headers.accepts(contentTypes: ["application/xml", "text/xml"])
    }

    public func onComplete(_ env: inout Env) throws {
        var settings = XMLSettings(makeDecoder: handler.makeDecoder, limits: handler.limits, checkedBody: nil)
        defer { env[XMLSettingsKey.self] = settings }
        guard let response = env.response, env.hasBodyToDecode, handler.decodes(response.headers.contentType) else {
            return
        }
        try env.requireDecodedBody()
        try env.checkXML(limits: handler.limits)
        settings.checkedBody = response.body
    }
}

/// What ``DecodeXML`` was configured with, for ``Faraday/Env/decodeXML(_:)``.
struct XMLSettings: Sendable {
    let makeDecoder: @Sendable () -> XMLDecoder
    let limits: XMLLimits
    /// The body ``DecodeXML`` checked, so that decoding it does not check it again (a layer above
    /// that replaced the body has it checked anew).
    var checkedBody: Data?
}

enum XMLSettingsKey: EnvKey { typealias Value = XMLSettings }

extension Env {
    /// Decodes this completion's body as XML into `type`, with the decoder and limits
    /// ``DecodeXML`` was configured with (a plain `XMLDecoder` and the default ``XMLLimits``
    /// without it). The document is checked against the limits first, whatever its content type.
    ///
    /// - Throws: `parsingFailed` carrying the response, for hostile or malformed XML and for a
    ///   document that does not fit `type` (with XMLCoder's `DecodingError`).
    public func decodeXML<Value: Decodable>(_ type: Value.Type) throws(FaradayError) -> Value {
        let settings =
            self[XMLSettingsKey.self]
            ?? XMLSettings(makeDecoder: { XMLDecoder() }, limits: XMLLimits(), checkedBody: nil)
        try requireDecodedBody()
        if settings.checkedBody != body { try checkXML(limits: settings.limits) }
        let decoder = settings.makeDecoder()
        decoder.errorContextLength = 0  // XMLCoder's error context indexes lines and can trap on odd input
        do {
            return try decoder.decode(type, from: body)
        } catch {
            throw FaradayError(
                .parsingFailed,
                "The response body could not be decoded as \(type) from XML: \(error)",
                method: request.method,
                url: request.url,
                response: response,
                underlying: error
            )
        }
    }

    /// Checks the body against `limits` (see ``XMLLimits``), failing with `parsingFailed`, or
    /// `bodyTooLarge` for the size, carrying the response.
    fileprivate func checkXML(limits: XMLLimits) throws(FaradayError) {
        do {
            try XMLSafetyCheck(limits: limits).check(body)
        } catch {
            var error = error.attaching(request)
            error.response = response
            throw error
        }
    }
}

extension Response {
    /// Decodes the final body as XML into `type` (see ``Faraday/Env/decodeXML(_:)``).
    ///
    /// - Throws: the call's error, or `parsingFailed` carrying the response.
    public func decodeXML<Value: Decodable>(_ type: Value.Type) async throws(FaradayError) -> Value {
        try await value.decodeXML(type)
    }
}
#endif
