import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// One accepted connection: reads requests in turn and answers each through the routes.
struct ServerConnection: Sendable {
    let channel: any Channel
    let accepted: AcceptedChannel<HTTPServerRequestPart, ByteBuffer>

    /// The largest request body the server keeps in memory (the `/upload` route counts instead).
    static let maxBufferedBody = 64 * 1024 * 1024

    func serve(counters: Counters) async {
        defer { counters.connectionsClosed.withLockedValue { $0 += 1 } }
        try? await accepted.take().executeThenClose { inbound, outbound in
            var parts = inbound.makeAsyncIterator()
            var answered = 0
            while let part = try await parts.next() {
                guard case .head(let head) = part else { continue }
                // A request on a connection that served one already, while drops are armed:
                // closed unanswered, as at the end of a keep-alive timeout.
                if answered > 0, let reset = counters.takeReuseDrop() {
                    if reset {
                        // A zero linger time makes close() send RST instead of FIN.
                        try? await (channel as? any SocketOptionProvider)?.setSoLinger(linger(l_onoff: 1, l_linger: 0))
                            .get()
                    }
                    return
                }
                answered += 1
                counters.requests.withLockedValue { $0 += 1 }
                let request = try await ServerRequest.read(head: head, from: &parts)
                let writer = ResponseWriter(
                    outbound: outbound,
                    channel: channel,
                    isHead: head.method == .HEAD,
                    counters: counters,
                    closesConnection: !head.isKeepAlive
                )
                let next = try await counters.answering { try await Routes.respond(to: request, with: writer) }
                if next == .close || !head.isKeepAlive {
                    // The answer reaches the socket before the connection closes, as nginx's does:
                    // a close with writes still pending drops them, and a long answer (10 MiB to
                    // a request with `Connection: close`) would end short.
                    try? await channel.writeAndFlush(ByteBuffer()).get()
                    return
                }
            }
        }
    }
}

/// A request as the routes see it.
struct ServerRequest: Sendable {
    let head: HTTPRequestHead
    let path: String
    let query: [String: String]
    /// The body, unless the route only counts it.
    let body: ByteBuffer
    /// How many body bytes arrived, and (for `/upload`) their FNV-1a hash.
    let bodyLength: Int
    let bodyHash: UInt64
    /// For `/multipart`: the parts, read as the body streamed in.
    let multipart: MultipartReader.Summary?

    func int(_ name: String, default value: Int) -> Int { query[name].flatMap(Int.init) ?? value }

    static func read(
        head: HTTPRequestHead,
        from parts: inout NIOAsyncChannelInboundStream<HTTPServerRequestPart>.AsyncIterator
    ) async throws -> ServerRequest {
        let components = URLComponents(string: head.uri)
        var query: [String: String] = [:]
        for item in components?.queryItems ?? [] { query[item.name] = item.value ?? "" }
        let path = components?.path ?? head.uri
        var multipart = path == "/multipart" ? multipartReader(for: head) : nil
        let keepsBody = path != "/upload" && path != "/multipart"
        var body = ByteBuffer()
        var length = 0
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        while let part = try await parts.next() {
            switch part {
            case .head: throw ServerError.unexpectedPart
            case .body(let chunk):
                length += chunk.readableBytes
                if multipart != nil {
                    multipart?.consume(Data(chunk.readableBytesView))
                } else if !keepsBody {
                    chunk.withUnsafeReadableBytes { bytes in
                        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
                    }
                } else {
                    guard body.readableBytes + chunk.readableBytes <= ServerConnection.maxBufferedBody else {
                        throw ServerError.bodyTooLarge
                    }
                    var chunk = chunk
                    body.writeBuffer(&chunk)
                }
            case .end:
                return ServerRequest(
                    head: head,
                    path: path,
                    query: query,
                    body: body,
                    bodyLength: length,
                    bodyHash: hash,
                    multipart: multipart?.finish()
                )
            }
        }
        throw ServerError.unexpectedPart
    }
}

/// A reader for a request whose content type is `multipart/…` with a boundary.
private func multipartReader(for head: HTTPRequestHead) -> MultipartReader? {
    guard let contentType = head.headers.first(name: "content-type"), contentType.lowercased().hasPrefix("multipart/"),
        let range = contentType.range(of: "boundary=", options: .caseInsensitive)
    else { return nil }
    var boundary = contentType[range.upperBound...].prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces)
    if boundary.count >= 2, boundary.hasPrefix("\""), boundary.hasSuffix("\"") {
        boundary = String(boundary.dropFirst().dropLast())
    }
    return boundary.isEmpty ? nil : MultipartReader(boundary: boundary)
}

enum ServerError: Error {
    case unexpectedPart, bodyTooLarge
}
