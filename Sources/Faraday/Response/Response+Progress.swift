extension Response {
    /// The request body's progress as it is sent: one value per step (throttled to every percent
    /// of a known length, or every 100 ms), the latest one first when the upload has begun. The
    /// sequence ends when the call does; after a successful upload its last value has
    /// ``TransferProgress/totalBytes`` equal to the bytes sent.
    ///
    /// Observing does not start the call. A retried or redirected call counts again from zero for
    /// each attempt that sends the body.
    public var uploadProgress: AsyncStream<TransferProgress> { cancellation.subscribeToProgress(.upload) }

    /// The response body's progress as it arrives, counted as bytes on the wire (as
    /// `Content-Length` counts them), for buffered and streamed responses alike; see
    /// ``uploadProgress`` for the rhythm and the end.
    ///
    /// ```swift
    /// let response = connection.get("archive.zip")
    /// Task {
    ///     for await progress in response.downloadProgress {
    ///         print(progress.fractionCompleted ?? 0)
    ///     }
    /// }
    /// let env = try await response.value
    /// ```
    public var downloadProgress: AsyncStream<TransferProgress> { cancellation.subscribeToProgress(.download) }

    /// Calls `callback` with each value of ``uploadProgress``, in order, in a task of its own.
    /// Does not start the call.
    @discardableResult
    public func onUploadProgress(_ callback: @escaping @Sendable (TransferProgress) -> Void) -> Response {
        Self.forward(uploadProgress, to: callback)
        return self
    }

    /// Calls `callback` with each value of ``downloadProgress``, in order, in a task of its own.
    /// Does not start the call.
    @discardableResult
    public func onDownloadProgress(_ callback: @escaping @Sendable (TransferProgress) -> Void) -> Response {
        Self.forward(downloadProgress, to: callback)
        return self
    }

    private static func forward(
        _ progress: AsyncStream<TransferProgress>,
        to callback: @escaping @Sendable (TransferProgress) -> Void
    ) {
        Task {
            for await value in progress { callback(value) }
        }
    }
}
