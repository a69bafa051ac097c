import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A response as a completion sees it: status, headers and the body of that completion.
public struct ResponseData: Sendable, Hashable {
    /// The status code and reason phrase.
    public var status: HTTPResponse.Status
    /// The response headers.
    public var headers: HTTPFields
    /// The raw body bytes: the whole body when buffered, one frame when streamed. Decoding
    /// middleware keep these bytes and put the decoded value beside them.
    public var body: Data
    /// The HTTP version the response came over (`"1.0"`, `"1.1"`, `"2"`), where the adapter knows it:
    /// `AsyncHTTPClientAdapter` sets it; ``URLSessionAdapter`` sets it on Apple platforms for a
    /// buffered response (from the task metrics) and leaves it `nil` on Linux, where
    /// FoundationNetworking does not expose it (see <doc:Adapters>); ``TestAdapter`` leaves it `nil`.
    public var httpVersion: String?

    /// Creates a response.
    public init(status: HTTPResponse.Status, headers: HTTPFields = HTTPFields(), body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The body as text, or `nil` when it cannot be read as text; ``decodedText()`` says why.
    public var text: String? { try? decodedText() }

    /// The encoding the body is declared in: the `charset` of `Content-Type` when it is one of the
    /// Encoding Standard's labels, else UTF-8 (as browsers read a label they do not know). A
    /// byte-order mark at the start of the body still wins when it is decoded.
    public var charset: Charset {
        headers.contentTypeParameters["charset"].flatMap { Charset(label: $0) } ?? .utf8
    }

    /// The body as text, decoded as browsers decode it: a byte-order mark names its encoding;
    /// else the `charset` of `Content-Type` does (`iso-8859-1`, `windows-1252`, `Shift_JIS`…,
    /// by the WHATWG Encoding Standard's labels); else, or for a label the standard does not
    /// know, it is UTF-8.
    ///
    /// - Throws: ``FaradayError/Code/parsingFailed`` for bytes that are not valid in that
    ///   encoding; ``FaradayError/Code/unsupportedCharset`` for an encoding this platform cannot
    ///   decode (EUC-JP on Linux) and for the standard's "replacement" encoding.
    public func decodedText() throws(FaradayError) -> String {
        do {
            return try charset.decode(body)
        } catch {
            var error = error
            error.response = self
            throw error
        }
    }
}

extension ResponseData: CustomReflectable {
    /// The fields as `print` and `dump` show a plain struct's, with the credential headers
    /// (`Set-Cookie`, tokens) hidden by ``Redaction``'s defaults.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "status": status, "headers": Redaction().redact(headers), "body": "\(body.count) bytes",
                "httpVersion": httpVersion as Any,
            ],
            displayStyle: .struct
        )
    }
}
