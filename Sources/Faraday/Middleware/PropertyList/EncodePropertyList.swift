#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Encodes a ``RequestBody/propertyList(_:)`` body as a property list (XML by default) and sets
/// `Content-Type: application/x-plist` unless the request has a content type. Other bodies pass
/// through.
///
/// ```swift
/// builder.use(EncodePropertyList.Handler(format: .binary))
/// connection.post("settings", body: .propertyList(Settings(theme: "dark")))
/// ```
///
/// A value that fails to encode fails the call with ``FaradayError/Code/encodingFailed`` before
/// anything is sent. Like Foundation's `PropertyListEncoder`, a `nil` is written as the string
/// `$null`, which `PropertyListDecoder` reads back as `nil`.
public struct EncodePropertyList: Middleware {
    /// The app below.
    public let app: any App
    /// The handler's settings.
    public let handler: Handler

    /// The property-list media type.
    public static let mediaType = "application/x-plist"

    /// Builds ``EncodePropertyList``.
    public struct Handler: BodyEncodingHandler {
        /// XML or binary.
        public var format: PropertyListDecoder.PropertyListFormat
        /// The content type set when the request has none.
        public var contentType: String

        /// Creates the handler.
        public init(
            format: PropertyListDecoder.PropertyListFormat = .xml,
            contentType: String = EncodePropertyList.mediaType
        ) {
            self.format = format
            self.contentType = contentType
        }

        public func build(app: any App) -> any Middleware { EncodePropertyList(app: app, handler: self) }

        package func encodeBody(of request: inout Request) throws(FaradayError) {
            try EncodePropertyList.encode(&request, format: format, contentType: contentType)
        }
    }

    public func onRequest(_ env: inout Env) async throws {
        try handler.encodeBody(of: &env)
    }

    /// Encodes a property-list body in place; other bodies are left alone.
    static func encode(
        _ request: inout Request,
        format: PropertyListDecoder.PropertyListFormat,
        contentType: String
    ) throws(FaradayError) {
        guard let body = request.body.value as? PropertyListBody else { return }
        do {
            request.body = .bytes(try body.encoded(format: format))
        } catch {
            throw error.attaching(request)
        }
        if !request.headers.contains(.contentType) { request.headers[.contentType] = contentType }
    }
}

/// A value waiting to be encoded as a property list.
struct PropertyListBody: Sendable {
    let value: any Encodable & Sendable

    func encoded(format: PropertyListDecoder.PropertyListFormat) throws(FaradayError) -> Data {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = format
        do {
            return try encoder.encode(value)
        } catch {
            throw FaradayError(
                .encodingFailed,
                "The request body of type \(type(of: value)) could not be encoded as a property list: \(error)",
                underlying: error
            )
        }
    }
}

extension RequestBody {
    /// A property-list body: encoded by ``EncodePropertyList`` when the stack has it, else as
    /// XML, as `application/x-plist`.
    public static func propertyList(_ value: some Encodable & Sendable) -> RequestBody {
        .value(PropertyListBody(value: value)) {
            try EncodePropertyList.encode(&$0, format: .xml, contentType: EncodePropertyList.mediaType)
        }
    }
}
