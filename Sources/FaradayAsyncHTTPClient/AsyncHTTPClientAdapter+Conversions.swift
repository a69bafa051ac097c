import AsyncHTTPClient
import Faraday
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
        let headers = headers(of: request)
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
                            try await awaitWrite(write, timeout: timeout, failure: failure)
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

    /// The request's fields as AsyncHTTPClient's headers, `Cookie` fields joined into one.
    static func headers(of request: Request) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.reserveCapacity(request.headers.count + 2)
        request.headers.forEachJoiningCookies { headers.add(name: $0.name.rawName, value: $0.value) }
        // What URLSessionAdapter's platform sends when the request names none, so that both adapters
        // put the same fields on the wire: any media type, and the body as it is.
        if !request.headers.contains(.accept) { headers.add(name: "Accept", value: "*/*") }
        if !request.headers.contains(.acceptEncoding) { headers.add(name: "Accept-Encoding", value: "identity") }
        return headers
    }

    /// Waits for a body write, failing with `failure` when it takes longer than `timeout`.
    private static func awaitWrite(
        _ write: EventLoopFuture<Void>,
        timeout: TimeAmount?,
        failure: FaradayError
    ) async throws {
        guard let timeout else { return try await write.get() }
        let outcome = write.eventLoop.makePromise(of: Void.self)
        // The first of the timer and the write to flip `settled` settles the outcome.
        let settled = Locked(false)
        let timer = write.eventLoop.scheduleTask(in: timeout) {
            if settled.setFirst() { outcome.fail(failure) }
        }
        write.whenComplete { result in
            timer.cancel()
            if settled.setFirst() { outcome.completeWith(result) }
        }
        try await outcome.futureResult.get()
    }

    /// The response's status, headers and HTTP version, refusing a status outside 100...999.
    static func response(
        _ status: HTTPResponseStatus,
        _ headers: HTTPHeaders,
        _ version: HTTPVersion,
        request: Request
    ) throws(FaradayError) -> ResponseData {
        var response = ResponseData(status: try Self.status(status, request: request), headers: fields(headers))
        response.httpVersion = name(of: version)
        return response
    }

    /// The version as RFC 9110 names it: "1.0", "1.1", "2", "3".
    private static func name(of version: HTTPVersion) -> String {
        switch (version.major, version.minor) {
        case (1, 1): "1.1"
        case (2, 0): "2"
        case (1, 0): "1.0"
        case (let major, 0) where major > 1: "\(major)"
        case (let major, let minor): "\(major).\(minor)"
        }
    }

    /// The status, refusing codes outside 100...999.
    private static func status(
        _ status: HTTPResponseStatus,
        request: Request
    ) throws(FaradayError) -> HTTPResponse.Status {
        let code = Int(status.code)
        guard (100...999).contains(code) else {
            throw FaradayError(
                .invalidResponse,
                "The server sent the status code \(code).",
                method: request.method,
                url: request.url
            )
        }
        return HTTPResponse.Status(code: code, reasonPhrase: status.reasonPhrase)
    }

    /// Response headers as `HTTPFields`; a field whose name is not a valid token is dropped.
    static func fields(_ headers: HTTPHeaders) -> HTTPFields {
        var fields = HTTPFields()
        fields.reserveCapacity(headers.count)
        for (name, value) in headers {
            guard let name = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: name, value: value))
        }
        return fields
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(Int64(clamping: seconds) &* 1_000_000_000 &+ attoseconds / 1_000_000_000)
    }
}
