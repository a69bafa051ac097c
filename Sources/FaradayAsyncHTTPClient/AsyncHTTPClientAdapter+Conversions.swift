import AsyncHTTPClient
import Faraday
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOPosix
import NIOHTTP1

extension AsyncHTTPClientAdapter {
    /// The AsyncHTTPClient request for a Faraday request; takes the body stream before anything is
    /// sent, so a one-shot body already used fails here.
    static func makeRequest(_ request: Request) throws(FaradayError) -> HTTPClient.Request {
        var headers = HTTPHeaders()
        headers.reserveCapacity(request.headers.count)
        for field in request.headers { headers.add(name: field.name.rawName, value: field.value) }

        let body: HTTPClient.Body?
        if let bytes = request.body.bytes {
            body = bytes.isEmpty ? nil : .data(bytes)
        } else {
            let stream = try request.body.makeStream()
            body = .stream(contentLength: request.body.length.map(Int64.init)) { writer in
                let promise = MultiThreadedEventLoopGroup.singleton.any().makePromise(of: Void.self)
                promise.completeWithTask {
                    for try await chunk in stream where !chunk.isEmpty {
                        try await writer.write(.byteBuffer(ByteBuffer(data: chunk))).get()
                    }
                }
                return promise.futureResult
            }
        }
        do {
            return try HTTPClient.Request(
                url: request.url, method: HTTPMethod(rawValue: request.method.rawValue), headers: headers, body: body)
        } catch {
            throw faradayError(error, request: request)
        }
    }

    /// The status, refusing codes outside 100...999.
    static func status(_ status: HTTPResponseStatus, request: Request) throws(FaradayError) -> HTTPResponse.Status {
        let code = Int(status.code)
        guard (100...999).contains(code) else {
            throw FaradayError(.invalidResponse, "The server sent the status code \(code).", method: request.method, url: request.url)
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
