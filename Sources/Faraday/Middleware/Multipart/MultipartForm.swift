import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A `multipart/form-data` body (RFC 7578): text fields, in-memory data and files streamed from
/// disk, each part with its own headers.
///
/// ```swift
/// let form: MultipartForm = [
///     .text("title", "Holiday"),
///     .file("photo", at: URL(filePath: "/tmp/beach.jpg"), contentType: "image/jpeg"),
/// ]
/// connection.post("photos", body: .multipart(form))   // with Multipart.Handler() in the stack
/// ```
///
/// Encoding (``encoded()``) produces a replayable stream of known length: files are read in
/// chunks when the body is sent, never loaded whole, so a gigabyte upload needs little memory.
public struct MultipartForm: Sendable, ExpressibleByArrayLiteral {
    /// The parts, in the order they are sent.
    public var parts: [Part]
    /// The boundary between parts; random by default (``makeBoundary()``).
    public var boundary: String

    /// Creates a form.
    public init(parts: [Part] = [], boundary: String = MultipartForm.makeBoundary()) {
        self.parts = parts
        self.boundary = boundary
    }

    /// Creates a form from a list of parts.
    public init(arrayLiteral parts: Part...) {
        self.init(parts: parts)
    }

    /// Adds a part at the end.
    public mutating func append(_ part: Part) {
        parts.append(part)
    }

    /// `multipart/form-data; boundary=…`, the request's content type.
    public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// A boundary of 32 random hexadecimal digits after a fixed prefix; its randomness keeps it
    /// out of any part's content.
    public static func makeBoundary() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = (0..<2).map { _ in String(generator.next() as UInt64, radix: 16) }
            .map { String(repeating: "0", count: 16 - $0.count) + $0 }
        return "faraday-" + digits.joined()
    }
}

extension MultipartForm {
    /// One part of a form: a field name, optional filename and content type, extra headers, and
    /// the content (text, bytes or a file).
    public struct Part: Sendable {
        /// Where a part's bytes come from.
        enum Content: Sendable {
            case bytes(Data)
            case file(URL)
        }

        /// The form field name (`Content-Disposition: form-data; name="…"`).
        public var name: String
        /// The filename sent in `Content-Disposition`, if any.
        public var filename: String?
        /// The part's `Content-Type`, if any.
        public var contentType: String?
        /// Further headers of the part (`Content-ID`, `Content-Transfer-Encoding`…).
        public var headers: HTTPFields
        let content: Content

        init(name: String, filename: String?, contentType: String?, headers: HTTPFields, content: Content) {
            self.name = name
            self.filename = filename
            self.contentType = contentType
            self.headers = headers
            self.content = content
        }

        /// A text field, sent as UTF-8 without a content type (a browser's text input).
        public static func text(_ name: String, _ value: String, headers: HTTPFields = HTTPFields()) -> Part {
            Part(name: name, filename: nil, contentType: nil, headers: headers, content: .bytes(Data(value.utf8)))
        }

        /// Bytes held in memory, optionally presented as a file.
        public static func data(
            _ name: String,
            _ data: Data,
            filename: String? = nil,
            contentType: String? = "application/octet-stream",
            headers: HTTPFields = HTTPFields()
        ) -> Part {
            Part(name: name, filename: filename, contentType: contentType, headers: headers, content: .bytes(data))
        }

        /// A file read from disk in chunks while the body is sent. `filename` defaults to the
        /// file's last path component.
        public static func file(
            _ name: String,
            at url: URL,
            filename: String? = nil,
            contentType: String = "application/octet-stream",
            headers: HTTPFields = HTTPFields()
        ) -> Part {
            Part(
                name: name,
                filename: filename ?? url.lastPathComponent,
                contentType: contentType,
                headers: headers,
                content: .file(url)
            )
        }
    }
}
