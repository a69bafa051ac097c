import Foundation
import NIOCore
import NIOHTTP1

/// The `/fault/…` routes of ``TestServer``: answers that break HTTP on purpose (see `Routes`).
enum FaultRoutes {
    static func fault(_ kind: String, _ writer: ResponseWriter) async throws -> Next {
        switch kind {
        case "reset-before-head":
            await writer.reset()
        case "reset-mid-body":
            try await writer.head(200, contentLength: 100_000)
            try await writer.body(ByteBuffer(repeating: UInt8(ascii: "a"), count: 1000))
            try await Task.sleep(for: .milliseconds(20))
            await writer.reset()
        case "truncated-chunked":
            try await writer.head(200, contentLength: nil)
            try await writer.chunk(ByteBuffer(string: "partial"))
        case "short-body":
            try await writer.head(200, contentLength: 100)
            try await writer.body(ByteBuffer(string: "only ten.."))
        case "garbage":
            try await writer.raw("HELLO THIS IS NOT HTTP\r\n\r\n")
        case "invalid-status":
            try await writer.raw("HTTP/1.1 99999 Nope\r\ncontent-length: 0\r\n\r\n")
        case "never":
            // No answer, ever; ends when the client closes the connection, so that tests see it
            // did, or when the server shuts down (which cancels this task and closes it here).
            let channel = writer.channel
            try await withTaskCancellationHandler {
                try await channel.closeFuture.get()
            } onCancel: {
                channel.close(promise: nil)
            }
            return .close
        case "huge-header":
            // One header of 1 MiB: past every client's header limit.
            try await writer.raw(
                "HTTP/1.1 200 OK\r\nx-huge: " + String(repeating: "h", count: 1 << 20)
                    + "\r\ncontent-length: 2\r\n\r\nok"
            )
        case "non-utf8-header":
            var head = ByteBuffer(string: "HTTP/1.1 200 OK\r\nx-latin1: caf")
            head.writeBytes([0xE9, 0xFF, 0xFE])
            head.writeString("\r\ncontent-type: text/plain\r\ncontent-length: 2\r\n\r\nok")
            try await writer.outbound.write(head)
            return .keepAlive
        case "long-body":
            // Ten bytes more than announced: the extra bytes are not part of this response.
            try await writer.raw("HTTP/1.1 200 OK\r\ncontent-length: 5\r\nconnection: close\r\n\r\nhello, extra!")
        default:
            try await writer.respond(404, text: "no fault \(kind)")
            return .keepAlive
        }
        return .close
    }
}
