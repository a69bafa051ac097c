import Foundation
import HTTPTypes

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

    /// The body as UTF-8 text, or `nil` if it is not valid UTF-8.
    public var text: String? { String(data: body, encoding: .utf8) }
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
