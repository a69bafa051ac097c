import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// Writes raw HTTP/1.1 responses, well-formed or deliberately broken.
struct ResponseWriter: Sendable {
    let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    let channel: any Channel
    /// A HEAD request: heads are written, bodies are not.
    let isHead: Bool
    let counters: Counters
    /// The request asked for its connection to close after the answer (`Connection: close`): the
    /// head says so, as nginx's does; a client that reads no `close` may keep the connection.
    var closesConnection = false

    /// Writes bytes exactly as given.
    func raw(_ bytes: String) async throws {
        try await outbound.write(ByteBuffer(string: bytes))
    }

    /// Writes a status line and headers. `contentLength` nil means chunked.
    func head(_ status: Int, reason: String = "", headers: [(String, String)] = [], contentLength: Int?) async throws {
        var text =
            "HTTP/1.1 \(status) \(reason.isEmpty ? HTTPResponseStatus(statusCode: status).reasonPhrase : reason)\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if closesConnection && !headers.contains(where: { $0.0.lowercased() == "connection" }) {
            text += "connection: close\r\n"
        }
        if let contentLength {
            if status != 204 && status != 304 { text += "content-length: \(contentLength)\r\n" }
        } else {
            text += "transfer-encoding: chunked\r\n"
        }
        try await raw(text + "\r\n")
    }

    /// Writes a whole response with a body.
    func respond(_ status: Int, headers: [(String, String)] = [], body: ByteBuffer) async throws {
        try await head(status, headers: headers, contentLength: body.readableBytes)
        if !isHead && body.readableBytes > 0 { try await outbound.write(body) }
    }

    /// Writes a whole response with a text body.
    func respond(_ status: Int, headers: [(String, String)] = [], text: String) async throws {
        try await respond(status, headers: headers, body: ByteBuffer(string: text))
    }

    /// Writes body bytes (framing is the caller's).
    func body(_ buffer: ByteBuffer) async throws {
        guard !isHead else { return }
        try await outbound.write(buffer)
        counters.bodyBytesSent.withLockedValue { $0 += buffer.readableBytes }
    }

    /// Writes one chunk of a chunked body.
    func chunk(_ buffer: ByteBuffer) async throws {
        guard !isHead, buffer.readableBytes > 0 else { return }
        var framed = ByteBuffer(string: String(buffer.readableBytes, radix: 16) + "\r\n")
        framed.writeImmutableBuffer(buffer)
        framed.writeString("\r\n")
        try await outbound.write(framed)
        counters.bodyBytesSent.withLockedValue { $0 += buffer.readableBytes }
    }

    /// Ends a chunked body.
    func endChunks() async throws {
        if !isHead { try await raw("0\r\n\r\n") }
    }

    /// Aborts the connection with a TCP reset.
    func reset() async {
        // A zero linger time makes close() send RST instead of FIN.
        try? await (channel as? any SocketOptionProvider)?.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
        try? await channel.close()
    }
}
