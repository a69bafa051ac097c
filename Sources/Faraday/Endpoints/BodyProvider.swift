import Foundation

/// Puts a body in an endpoint's request and says what it is (`Content-Type`): a small struct
/// around a function, so call sites read `.json(user)`, `.form(params)`, `.file(url)`.
///
/// Write your own as a static member in an extension:
///
/// ```swift
/// extension BodyProvider {
///     static func csv(_ rows: [[String]]) -> BodyProvider {
///         BodyProvider { request in
///             request.body = .text(rows.map { $0.joined(separator: ",") }.joined(separator: "\n"))
///             request.headers[.contentType] = "text/csv"
///         }
///     }
/// }
/// ```
public struct BodyProvider: Sendable {
    private let body: @Sendable (inout Request) throws -> Void

    /// Creates a provider from a function that sets the request's body and content type. Throw
    /// before changing the request; errors become ``FaradayError/Code/encodingFailed``.
    public init(_ encode: @escaping @Sendable (inout Request) throws -> Void) {
        self.body = encode
    }

    /// Applies the provider to a request.
    func encode(_ request: inout Request) throws(FaradayError) {
        do {
            try body(&request)
        } catch let error as FaradayError {
            throw error.attaching(request)
        } catch {
            throw FaradayError(.encodingFailed, "The request body could not be encoded: \(error)", underlying: error)
                .attaching(request)
        }
    }

    /// An `Encodable` value (or a ``JSON``) as `application/json`.
    public static func json(_ value: some Encodable & Sendable, encoder: JSONEncoder = JSONEncoder()) -> BodyProvider {
        BodyProvider { request in
            request.body = .bytes(try encoder.encode(value))
            request.headers[.contentType] = "application/json"
        }
    }

    /// Text, UTF-8 encoded, as `text/plain; charset=utf-8` or the given content type.
    public static func text(_ text: String, contentType: String = "text/plain; charset=utf-8") -> BodyProvider {
        .data(Data(text.utf8), contentType: contentType)
    }

    /// Bytes with a content type.
    public static func data(_ data: Data, contentType: String = "application/octet-stream") -> BodyProvider {
        BodyProvider { request in
            request.body = .bytes(data)
            request.headers[.contentType] = contentType
        }
    }

    /// A file streamed from disk (see ``RequestBody/file(_:)``).
    public static func file(_ url: URL, contentType: String = "application/octet-stream") -> BodyProvider {
        BodyProvider { request in
            request.body = try .file(url)
            request.headers[.contentType] = contentType
        }
    }

    /// Form parameters as `application/x-www-form-urlencoded`, through the request's params
    /// encoder.
    public static func form(_ params: Params) -> BodyProvider {
        BodyProvider { request in
            request.body = .text(request.options.paramsEncoder.encode(params))
            request.headers[.contentType] = URLEncoded.mediaType
        }
    }

    /// A multipart form, files streamed from disk.
    ///
    /// The form stays a value until the request is sent, so ``ParameterSet``s with the
    /// `propertyList` encoding can add text parts to it (HTTPTransport's file-upload rule).
    public static func multipart(_ form: MultipartForm) -> BodyProvider {
        BodyProvider { request in
            request.body = .multipart(form)
        }
    }

    /// An `Encodable` value as a property list (`application/x-plist`).
    public static func propertyList(
        _ value: some Encodable & Sendable,
        format: PropertyListSerialization.PropertyListFormat = .xml
    ) -> BodyProvider {
        BodyProvider { request in
            request.body = .bytes(try PropertyListBody(value: value).encoded(format: format))
            request.headers[.contentType] = EncodePropertyList.mediaType
        }
    }
}
