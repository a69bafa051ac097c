#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Encodes a ``MultipartForm`` request body as `multipart/form-data`. Other bodies pass through.
///
/// ```swift
/// builder.use(Multipart.Handler())
/// connection.post("uploads", body: .multipart([
///     .text("description", "Q3 report"),
///     .file("report", at: reportURL, contentType: "application/pdf"),
/// ]))
/// ```
///
/// The content type is `multipart/form-data; boundary=…`; when the request already names a
/// multipart media type (`multipart/related`…), that type is kept and the boundary added.
/// Files stream from disk as the body is sent, and the body can be replayed by retries and
/// redirects.
public struct Multipart: Middleware {
    /// The app below.
    public let app: any App
    /// The handler's settings.
    public let handler: Handler

    /// Builds ``Multipart``.
    public struct Handler: BodyEncodingHandler {
        /// Creates the handler.
        public init() {}

        public func build(app: any App) -> any Middleware { Multipart(app: app, handler: self) }

        package func encodeBody(of request: inout Request) throws(FaradayError) {
            try request.encodeMultipartForm()
        }
    }

    public func onRequest(_ env: inout Env) async throws {
        try handler.encodeBody(of: &env)
    }
}

extension Request {
    /// Encodes a ``MultipartForm`` body and sets the content type with its boundary; does
    /// nothing for other bodies.
    mutating func encodeMultipartForm() throws(FaradayError) {
        guard let form = body.value as? MultipartForm else { return }
        do {
            body = try form.encoded()
        } catch {
            throw error.attaching(self)
        }
        let mediaType = headers.contentType.flatMap { $0.hasPrefix("multipart/") ? $0 : nil }
        headers.setContentType(mediaType ?? "multipart/form-data", parameters: ["boundary": form.boundary])
    }
}

extension RequestBody {
    /// A multipart form body, encoded as `multipart/form-data` (by ``Multipart`` when the stack has
    /// it, the same way otherwise); files stream from disk as it is sent.
    public static func multipart(_ form: MultipartForm) -> RequestBody {
        .value(form) { try $0.encodeMultipartForm() }
    }
}
