#if XML
import Faraday
import Foundation
import XMLCoder

/// Encodes a ``Faraday/RequestBody/xml(_:root:)`` body with XMLCoder and sets
/// `Content-Type: application/xml` unless the request has a content type. Other bodies pass
/// through (an `Encodable` given to `.json` stays JSON).
///
/// ```swift
/// builder.use(EncodeXML.Handler())
/// connection.post("orders", body: .xml(Order(id: 7, items: ["tea"]), root: "order"))
/// // <?xml version="1.0" encoding="UTF-8"?><order><id>7</id><items>tea</items></order>
/// ```
///
/// A value that cannot be encoded fails the call with `encodingFailed` before anything is sent.
/// Without this middleware, an XML body is encoded with a plain `XMLEncoder` just above the
/// adapter; use it to choose the encoder's strategies (dates, keys, attributes) or the content
/// type.
public struct EncodeXML: Middleware {
    /// The app below.
    public let app: any App
    /// The handler's settings.
    public let handler: Handler

    /// The XML media type (RFC 7303).
    public static let mediaType = "application/xml"

    /// Builds ``EncodeXML``.
    public struct Handler: BodyEncodingHandler {
        /// Makes the encoder for each body (XMLCoder's encoder is a class with settings, not
        /// safe to share across threads): set its strategies here.
        public var makeEncoder: @Sendable () -> XMLEncoder
        /// The content type set when the request has none.
        public var contentType: String

        /// Creates the handler.
        public init(
            contentType: String = EncodeXML.mediaType,
            makeEncoder: @escaping @Sendable () -> XMLEncoder = { XMLEncoder() }
        ) {
            self.makeEncoder = makeEncoder
            self.contentType = contentType
        }

        public func build(app: any App) -> any Middleware { EncodeXML(app: app, handler: self) }

        package func encodeBody(of request: inout Request) throws(FaradayError) {
            try EncodeXML.encode(&request, encoder: makeEncoder(), contentType: contentType)
        }
    }

    public func onRequest(_ env: inout Env) async throws {
        try handler.encodeBody(of: &env)
    }

    /// Encodes an XML body in place; other bodies are left alone.
    static func encode(_ request: inout Request, encoder: XMLEncoder, contentType: String) throws(FaradayError) {
        guard let body = request.body.value as? XMLBody else { return }
        do {
            request.body = .bytes(
                try encoder.encode(
                    body.value,
                    withRootKey: body.root,
                    header: XMLHeader(version: 1.0, encoding: "UTF-8")
                )
            )
        } catch {
            throw FaradayError(
                .encodingFailed,
                "The request body of type \(type(of: body.value)) could not be encoded as XML: \(error)",
                method: request.method,
                url: request.url,
                underlying: error
            )
        }
        if !request.headers.contains(.contentType) { request.headers[.contentType] = contentType }
    }
}

/// A value waiting to be encoded as XML, under its root element's name. Not `Encodable` itself,
/// so that no other encoder of the stack (EncodeJSON takes any `Encodable`) takes it.
struct XMLBody: Sendable {
    let value: any Encodable & Sendable
    let root: String
}

extension RequestBody {
    /// An `Encodable` value as an XML document whose root element is `root`: encoded by
    /// ``EncodeXML`` when the stack has it, else with a plain `XMLEncoder`, as `application/xml`.
    public static func xml(_ value: some Encodable & Sendable, root: String) -> RequestBody {
        .value(XMLBody(value: value, root: root)) {
            try EncodeXML.encode(&$0, encoder: XMLEncoder(), contentType: EncodeXML.mediaType)
        }
    }
}
#endif
