#if NIO
import Faraday
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import NIOHTTP1

/// Sends a streamed request body on a connection, a slice at a time: the next slice is written
/// once the connection took the last, so a server that reads slowly slows the upload, and one
/// that stops reading fails it after the write timeout.
struct Upload {
    let channel: any Channel
    let timeout: TimeAmount?
    let request: Request
    let progress: Env

    private var writeTimeout: FaradayError {
        FaradayError(
            .writeTimeout,
            "The server did not accept the request body within the write timeout.",
            method: request.method,
            url: request.url
        )
    }

    /// Writes `stream` and the request's end; throws when the stream fails, its length differs
    /// from the declared `length`, or a slice is not taken within the timeout.
    ///
    /// `ended` runs on the connection's loop once the request's end is written.
    func send(_ stream: ByteStream, length: Int?, ended: @escaping @Sendable () -> Void) async throws {
        var sent: Int64 = 0
        for try await chunk in stream {
            var offset = chunk.startIndex
            while offset < chunk.endIndex {
                let end = chunk.index(offset, offsetBy: 64 * 1024, limitedBy: chunk.endIndex) ?? chunk.endIndex
                // Bytes past the declared length would reach the server as the start of another
                // request: refused before they are written.
                if let length, sent + Int64(end - offset) > Int64(length) { throw mismatch(length) }
                let part = HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: chunk[offset..<end])))
                let written: EventLoopFuture<Void> = channel.writeAndFlush(part)
                // Reported on the loop as the write completes, so before the response that
                // follows it can end the call (reported after the await, the last slice's report
                // could come after the progress ended).
                let total = sent + Int64(end - offset)
                written.whenSuccess { [progress] in progress.reportProgress(sent: total, of: length.map(Int64.init)) }
                try await written.get(within: timeout, orFail: writeTimeout)
                sent = total
                offset = end
            }
        }
        if let length, sent != Int64(length) { throw mismatch(length) }
        let end: EventLoopFuture<Void> = channel.writeAndFlush(HTTPClientRequestPart.end(nil))
        end.whenSuccess(ended)
        try await end.get(within: timeout, orFail: writeTimeout)
    }

    private func mismatch(_ length: Int) -> FaradayError {
        FaradayError(
            .invalidRequest,
            "The request body's length differs from its declared length (\(length) bytes).",
            method: request.method,
            url: request.url
        )
    }
}
#endif
