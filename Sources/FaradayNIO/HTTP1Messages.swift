#if NIO
import Faraday
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes
import NIOCore
import NIOHTTP1

/// Faraday's requests and responses as NIOHTTP1's heads, for the adapters on SwiftNIO: the same
/// fields on the wire and the same responses up the stack from each.
package enum HTTP1Messages {
    /// The request's fields as NIO's headers, `Cookie` fields joined into one. Through a proxy
    /// (both adapters tunnel every request through one) the request reaches the origin, so its
    /// own `Proxy-Authorization`, meant for a proxy, is left out.
    package static func headers(of request: Request) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.reserveCapacity(request.headers.count + 2)
        request.headers.forEachJoiningCookies { headers.add(name: $0.name.rawName, value: $0.value) }
        if request.options.proxy?.proxy(for: request.url) != nil { headers.remove(name: "Proxy-Authorization") }
        // What URLSessionAdapter's platform sends when the request names none, so that every adapter
        // puts the same fields on the wire: any media type, and the body as it is.
        if !request.headers.contains(.accept) { headers.add(name: "Accept", value: "*/*") }
        if !request.headers.contains(.acceptEncoding) { headers.add(name: "Accept-Encoding", value: "identity") }
        return headers
    }

    /// The response's status, headers and HTTP version, refusing a status outside 100...999.
    package static func response(
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
    private static func fields(_ headers: HTTPHeaders) -> HTTPFields {
        var fields = HTTPFields()
        fields.reserveCapacity(headers.count)
        for (name, value) in headers {
            guard let name = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: name, value: value))
        }
        return fields
    }
}

/// The buffered body grew past the request's limit.
package struct BodyTooLarge: Error {
    package let limit: Int

    package init(limit: Int) { self.limit = limit }
}

extension ByteBuffer {
    /// Appends `part` unless the whole would pass `limit` bytes; `false` (and nothing appended)
    /// when it would: a buffered body's bound, the same on every adapter on SwiftNIO.
    package mutating func append(_ part: ByteBuffer, upTo limit: Int) -> Bool {
        guard readableBytes + part.readableBytes <= limit else { return false }
        var part = part
        writeBuffer(&part)
        return true
    }
}

extension EventLoopFuture where Value == Void {
    /// Waits for a write, failing with `failure` when it takes longer than `timeout` (`nil`: as
    /// long as it takes): a request body's write timeout, on both adapters on SwiftNIO.
    package func get(within timeout: TimeAmount?, orFail failure: FaradayError) async throws {
        guard let timeout else { return try await get() }
        let outcome = eventLoop.makePromise(of: Void.self)
        // The first of the timer and the write to flip `settled` settles the outcome.
        let settled = Locked(false)
        let timer = eventLoop.scheduleTask(in: timeout) {
            if settled.setFirst() { outcome.fail(failure) }
        }
        whenComplete { result in
            timer.cancel()
            if settled.setFirst() { outcome.completeWith(result) }
        }
        try await outcome.futureResult.get()
    }
}
#endif
