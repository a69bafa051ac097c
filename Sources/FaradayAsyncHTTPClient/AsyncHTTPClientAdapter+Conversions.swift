#if AsyncHTTPClient
import AsyncHTTPClient
import Faraday
import FaradayNIO
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOPosix

extension AsyncHTTPClientAdapter {
    /// The AsyncHTTPClient request for a Faraday request; takes the body stream before anything is
    /// sent, so a one-shot body already used fails here.
    ///
    /// With a write timeout, every body is streamed in slices and each slice must be accepted by
    /// the connection within the timeout: a server that stops reading fails the call with
    /// `FaradayError.Code.writeTimeout`.
    static func makeRequest(_ request: Request, writeTimeout: Duration?) throws(FaradayError) -> HTTPClient.Request {
        let headers = HTTP1Messages.headers(of: request)
        let body: HTTPClient.Body?
        if let bytes = request.body.bytesInMemory, bytes.isEmpty {
            body = nil
        } else if let bytes = request.body.bytesInMemory, writeTimeout == nil {
            body = .data(bytes)
        } else {
            let stream = try request.body.makeStream()
            let timeout = writeTimeout.map { TimeAmount($0) }
            let failure = FaradayError(
                .writeTimeout,
                "The server did not accept the request body within \(writeTimeout.map { "\($0)" } ?? "")",
                method: request.method,
                url: request.url
            )
            body = .stream(contentLength: request.body.length.map(Int64.init)) { writer in
                let promise = MultiThreadedEventLoopGroup.singleton.any().makePromise(of: Void.self)
                promise.completeWithTask {
                    for try await chunk in stream {
                        var offset = chunk.startIndex
                        while offset < chunk.endIndex {
                            let end =
                                chunk.index(offset, offsetBy: 64 * 1024, limitedBy: chunk.endIndex) ?? chunk.endIndex
                            let write = writer.write(.byteBuffer(ByteBuffer(bytes: chunk[offset..<end])))
                            try await write.get(within: timeout, orFail: failure)
                            offset = end
                        }
                    }
                }
                return promise.futureResult
            }
        }
        do {
            return try HTTPClient.Request(
                url: request.url,
                method: HTTPMethod(rawValue: request.method.rawValue),
                headers: headers,
                body: body
            )
        } catch {
            throw faradayError(error, request: request)
        }
    }
}
#endif
