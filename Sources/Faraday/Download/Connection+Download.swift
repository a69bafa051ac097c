import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Connection {
    /// Downloads `path` to the file at `destination`, streaming it to disk with bounded memory.
    ///
    /// The body is written to `<destination>.part` as it arrives and moved to `destination`
    /// (replacing a file there) once it is whole; the handle's ``Response/downloadProgress``
    /// counts the bytes on disk against the file's whole length. When the transfer is cut
    /// (``FaradayError/Code/connectionFailed``, a read timeout, a truncated body) the download
    /// resumes where it stopped, up to `resumeAttempts` times, with `Range` and an `If-Range`
    /// validator (the response's strong `ETag`, or its `Last-Modified`); a server that ignores
    /// the range, or whose file changed, sends the whole file again, and the download starts
    /// over. A download that fails or is cancelled leaves its `.part` file, which the next
    /// download to the same destination from the same URL resumes.
    ///
    /// ```swift
    /// let env = try await connection.download("releases/app.zip", to: file)
    ///     .onDownloadProgress { print($0.fractionCompleted ?? 0) }
    ///     .value
    /// print(env.downloadedFile?.length ?? 0)
    /// ```
    ///
    /// The final env carries the last response's status and headers, an empty body and
    /// ``Env/downloadedFile``. A response that is not a success (a 404) writes nothing: its body
    /// is buffered into the final env as for any request (and ``RaiseError`` raises it).
    /// The request asks for `Accept-Encoding: identity`, so that the file holds the bytes the
    /// ranges count.
    ///
    /// The parameters come in the order of every verb (`get(_:params:headers:)`), then the
    /// download's own.
    ///
    /// - Parameters:
    ///   - path: a path relative to ``url``, or a full http(s) URL.
    ///   - params: query parameters, over the connection's and the path's.
    ///   - headers: headers, over the connection's.
    ///   - destination: the file to write.
    ///   - resumeAttempts: how many times a cut transfer resumes within this call.
    ///   - configure: changes the request once it is built.
    @discardableResult
    public func download(
        _ path: String = "",
        params: Params = Params(),
        headers: HTTPFields = HTTPFields(),
        to destination: URL,
        resumeAttempts: Int = 3,
        configure: ((inout Request) throws -> Void)? = nil
    ) -> Response {
        var (request, failure) = buildRequest(
            method: .get,
            path,
            params: params,
            headers: headers,
            streaming: .chunks,
            configure: configure
        )
        if let failure { return Response(request: request, failure: failure) }
        request.options.streaming = .chunks
        request.headers[.acceptEncoding] = "identity"
        let download = FileDownload(destination: destination, resumeAttempts: max(0, resumeAttempts))
        return run(request) { app, env in try await download.run(app, env) }
    }
}

/// What ``Connection/download(_:params:headers:to:resumeAttempts:configure:)`` wrote.
public struct DownloadedFile: Sendable, Hashable {
    /// The file.
    public var url: URL
    /// Its length in bytes.
    public var length: Int64
    /// The offsets the download resumed from (a `.part` file left by an earlier call, or cuts
    /// within this one), in order; empty when it ran from start to end in one response.
    public var resumedFrom: [Int64]

    /// Creates a description of a downloaded file.
    public init(url: URL, length: Int64, resumedFrom: [Int64] = []) {
        self.url = url
        self.length = length
        self.resumedFrom = resumedFrom
    }
}

extension Env {
    private enum DownloadedFileKey: EnvKey { typealias Value = DownloadedFile }

    /// The file a download wrote, on its final env.
    public internal(set) var downloadedFile: DownloadedFile? {
        get { self[DownloadedFileKey.self] }
        set { self[DownloadedFileKey.self] = newValue }
    }
}
