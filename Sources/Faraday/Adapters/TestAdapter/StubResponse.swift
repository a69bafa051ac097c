import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a ``TestAdapter`` stub answers.
///
/// A response has a status, headers and a ``ResponseBody``. A buffered request receives the body
/// whole; a streamed request (``RequestOptions/streaming``) receives one completion per piece of
/// it (``ResponseBody/init(pieces:)``), so streaming semantics can be tested without sockets.
/// After the body the stream can end, fail, or wait until the call is cancelled.
public struct StubResponse: Sendable {
    /// What happens after the last chunk.
    public struct Ending: Sendable {
        enum Kind: Sendable {
            case finish
            case fail(FaradayError)
            case waitForCancellation
        }
        let kind: Kind

        /// The body ends normally.
        public static let finish = Ending(kind: .finish)
        /// The transfer fails with `error` (a reset or a truncated body, say).
        public static func fail(_ error: FaradayError) -> Ending { Ending(kind: .fail(error)) }
        /// The transfer stalls until the call is cancelled, like a server that stops sending.
        public static let waitForCancellation = Ending(kind: .waitForCancellation)
    }

    /// The status.
    public var status: HTTPResponse.Status
    /// The headers.
    public var headers: HTTPFields
    /// The body.
    public var body: ResponseBody
    /// What happens after the body.
    public var ending: Ending
    /// When `true`, the stub never answers: the call waits until it is cancelled.
    public var waitsForCancellation: Bool

    /// Creates a response.
    public init(
        status: HTTPResponse.Status = .ok,
        headers: HTTPFields = HTTPFields(),
        body: ResponseBody = .empty,
        ending: Ending = .finish
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.ending = ending
        self.waitsForCancellation = false
    }

    /// Creates a response with a body of bytes.
    public init(status: HTTPResponse.Status = .ok, headers: HTTPFields = HTTPFields(), body: Data) {
        self.init(status: status, headers: headers, body: ResponseBody(body))
    }

    /// Creates a response with a body of UTF-8 text.
    public init(status: HTTPResponse.Status = .ok, headers: HTTPFields = HTTPFields(), body: String) {
        self.init(status: status, headers: headers, body: ResponseBody(Data(body.utf8)))
    }

    /// A response that never comes: the call waits until it is cancelled.
    public static var noResponse: StubResponse {
        var response = StubResponse()
        response.waitsForCancellation = true
        return response
    }
}
