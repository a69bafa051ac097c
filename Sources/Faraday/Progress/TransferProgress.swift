import HTTPTypes

/// How far one direction of a transfer has come: the request body sent, or the response body
/// received.
///
/// Bytes are counted as they cross the wire: a compressed response counts its compressed bytes,
/// as its `Content-Length` does. ``totalBytes`` is the body's length when it is known
/// (`Content-Length`, a body of known length); at the end of a successful call the last value
/// always has it.
public struct TransferProgress: Sendable, Hashable, CustomStringConvertible {
    /// The bytes transferred so far.
    public var completedBytes: Int64
    /// The body's length, when known.
    public var totalBytes: Int64?

    /// Creates a progress value.
    public init(completedBytes: Int64, totalBytes: Int64?) {
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
    }

    /// The fraction done, from 0 to 1, when the total is known (1 for an empty body).
    public var fractionCompleted: Double? {
        guard let totalBytes else { return nil }
        guard totalBytes > 0 else { return 1 }
        return min(1, Double(completedBytes) / Double(totalBytes))
    }

    public var description: String {
        totalBytes.map { "\(completedBytes)/\($0) bytes" } ?? "\(completedBytes) bytes"
    }
}

extension TransferProgress {
    /// The length of a response body as its head announces it, for an adapter's download
    /// progress: none after `HEAD` or with a status that has no body (1xx, 204, 304), else its
    /// `Content-Length` when valid.
    public static func expectedBodyLength(method: HTTPRequest.Method, status: Int, contentLength: String?) -> Int64? {
        if method == .head || (100..<200).contains(status) || status == 204 || status == 304 { return 0 }
        return contentLength.flatMap { Int64(asciiDigits: $0) }
    }
}

extension Env {
    /// Reports the request body's bytes sent so far, and its length when known, for
    /// ``Response/uploadProgress``.
    ///
    /// An adapter reports absolute counts for the attempt it runs (a retried or redirected call
    /// starts counting again); reporting costs a lock and nothing else when nobody observes.
    public func reportProgress(sent bytes: Int64, of total: Int64?) {
        cancellation.progressHub?.report(.upload, TransferProgress(completedBytes: bytes, totalBytes: total))
    }

    /// Reports the response body's bytes received so far, and its length when known, for
    /// ``Response/downloadProgress``; see ``reportProgress(sent:of:)``.
    public func reportProgress(received bytes: Int64, of total: Int64?) {
        cancellation.progressHub?.report(.download, TransferProgress(completedBytes: bytes, totalBytes: total))
    }
}
