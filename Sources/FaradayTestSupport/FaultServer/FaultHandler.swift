import NIOCore
import NIOHTTP1
import NIOPosix

/// One connection of ``FaultServer``: reads each request, draws its fault and carries it out,
/// writing raw bytes (no response encoder), so that a head or a chunk can be cut anywhere.
final class FaultHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = ByteBuffer

    /// Draws the fault for a request by its name.
    private let draw: (String) -> (Fault, SplitMix64)

    /// The request being read: its name, fault, random source, whether the connection stays
    /// open after it, and the body so far.
    private var request: (name: String, fault: Fault, random: SplitMix64, keepAlive: Bool, body: [UInt8])?
    /// The request's body is not read: it was answered already (``Fault/answerBeforeBody``).
    private var skippingBody = false
    /// How many answers the connection has begun writing: a keep-alive close planned after one
    /// answer is called off when the next has begun.
    private var answersBegun = 0

    init(draw: @escaping (String) -> (Fault, SplitMix64)) {
        self.draw = draw
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            let name = head.uri.split(separator: "/").last.map(String.init) ?? ""
            let (fault, random) = draw(name)
            let hasBody =
                head.headers["content-length"].first.map { $0 != "0" } ?? !head.headers["transfer-encoding"].isEmpty
            if fault == .okBeforeBody && hasBody {
                skippingBody = true
                answersBegun += 1
                let body = FaultServer.responseBody(for: name)
                write(context, Self.okHead(name: name, bodyCheck: "unread", keepAlive: true, length: body.count), body)
                return
            }
            if fault == .answerBeforeBody && hasBody {
                skippingBody = true
                answersBegun += 1
                let text = "request body too large"
                write(
                    context,
                    "HTTP/1.1 413 Content Too Large\r\ncontent-type: text/plain\r\nconnection: close\r\n"
                        + "x-request-name: \(name)\r\ncontent-length: \(text.utf8.count)\r\n\r\n\(text)"
                ).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
                return
            }
            request = (name, fault, random, head.isKeepAlive, [])
        case .body(var chunk):
            guard !skippingBody else { return }
            request?.body += chunk.readBytes(length: chunk.readableBytes) ?? []
        case .end:
            // The body of a request answered before it: only okBeforeBody's connection is still
            // open, and closes now.
            guard !skippingBody else { return close(context, reset: false) }
            guard let request else { return }
            self.request = nil
            answer(context, request)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func answer(
        _ context: ChannelHandlerContext,
        _ request: (name: String, fault: Fault, random: SplitMix64, keepAlive: Bool, body: [UInt8])
    ) {
        var random = request.random
        let body = FaultServer.responseBody(for: request.name)
        let bodyOK = request.body.isEmpty || request.body == FaultServer.requestBody(for: request.name)
        let bodyCheck = bodyOK ? "ok" : "wrong"
        let fixedHead = Self.okHead(
            name: request.name,
            bodyCheck: bodyCheck,
            keepAlive: request.keepAlive,
            length: body.count
        )
        let chunkedHead = Self.okHead(
            name: request.name,
            bodyCheck: bodyCheck,
            keepAlive: request.keepAlive,
            length: nil
        )
        let half = body.count / 2
        if request.fault != .neverAnswer && request.fault != .halfCloseAfterRequest { answersBegun += 1 }
        let loop = context.eventLoop.assumeIsolated()

        switch request.fault {
        case .fixedLength:
            finish(context, write(context, fixedHead, body), keepAlive: request.keepAlive)
        case .chunked:
            finish(
                context,
                write(context, chunkedHead, chunks(body, size: 4096), "0\r\n\r\n"),
                keepAlive: request.keepAlive
            )
        case .dripBody:
            write(context, chunkedHead)
            drip(context, pieces: pieces(of: body, count: 12), random: random, keepAlive: request.keepAlive)
        case .stallHead:
            // Mostly shorter than a client's timeout; one stall in eight longer than two seconds.
            let stall = random.next() % 8 == 0 ? 2_500 : Int64(random.next() % 400)
            loop.scheduleTask(in: .milliseconds(stall)) {
                self.finish(context, self.write(context, fixedHead, body), keepAlive: request.keepAlive)
            }
        case .closeWhenIdle:
            let begun = answersBegun
            let reset = random.next() % 2 == 0
            let pause = Int64(random.next() % 15)
            let written = write(context, fixedHead, body)
            guard request.keepAlive else { return finish(context, written, keepAlive: false) }
            written.assumeIsolated().whenSuccess {
                loop.scheduleTask(in: .milliseconds(pause)) {
                    // An idle connection only: a connection that began its next answer stays.
                    guard self.answersBegun == begun else { return }
                    self.close(context, reset: reset)
                }
            }
        case .closeAfterAnswer:
            let head = Self.okHead(name: request.name, bodyCheck: bodyCheck, keepAlive: false, length: body.count)
            finish(context, write(context, head, body), keepAlive: false)
        case .resetBeforeHead:
            close(context, reset: true)
        case .resetInHead:
            let cut = fixedHead.utf8.count / 2
            write(context, String(decoding: fixedHead.utf8.prefix(cut), as: UTF8.self))
                .assumeIsolated().whenComplete { _ in self.close(context, reset: true) }
        case .resetInFixedBody:
            write(context, fixedHead, Array(body.prefix(half)))
                .assumeIsolated().whenComplete { _ in self.close(context, reset: true) }
        case .resetInChunkedBody:
            write(context, chunkedHead, chunks(Array(body.prefix(half)), size: 4096))
                .assumeIsolated().whenComplete { _ in self.close(context, reset: true) }
        case .malformedHead:
            let heads = ["HTP/1.1 200 OK\r\n\r\n", "HTTP/1.1 2x0 OK\r\ncontent-length: 0\r\n\r\n"]
            write(context, heads[Int(random.next() % 2)]).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
        case .malformedChunkSize:
            write(context, chunkedHead + "zz\r\nnot a chunk\r\n0\r\n\r\n")
                .assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        case .halfCloseAfterRequest:
            context.close(mode: .output, promise: nil)
        case .answerBeforeBody:
            // A request without a body: answered whole, and the connection closed after it.
            finish(context, write(context, fixedHead, body), keepAlive: false)
        case .okBeforeBody:
            // A request without a body: answered whole.
            finish(context, write(context, fixedHead, body), keepAlive: request.keepAlive)
        case .neverAnswer:
            break
        }
    }

    /// Writes the pieces one after another, a few milliseconds apart, then the last chunk.
    private func drip(_ context: ChannelHandlerContext, pieces: [[UInt8]], random: SplitMix64, keepAlive: Bool) {
        var random = random
        guard let piece = pieces.first else {
            finish(context, write(context, "0\r\n\r\n"), keepAlive: keepAlive)
            return
        }
        write(context, "", chunks(piece, size: piece.count))
        context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(Int64(1 + random.next() % 4))) {
            self.drip(context, pieces: Array(pieces.dropFirst()), random: random, keepAlive: keepAlive)
        }
    }

    /// The head of a `200`: its body `length` long, or chunked when `nil`.
    private static func okHead(name: String, bodyCheck: String, keepAlive: Bool, length: Int?) -> String {
        "HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\nx-request-name: \(name)\r\n"
            + "x-request-body: \(bodyCheck)\r\n" + (keepAlive ? "" : "connection: close\r\n")
            + (length.map { "content-length: \($0)\r\n" } ?? "transfer-encoding: chunked\r\n") + "\r\n"
    }

    /// Closes the connection after `written` when the request asked for that.
    private func finish(_ context: ChannelHandlerContext, _ written: EventLoopFuture<Void>, keepAlive: Bool) {
        guard !keepAlive else { return }
        written.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    /// Closes the connection, by RST when `reset` (a zero linger time), else by FIN.
    private func close(_ context: ChannelHandlerContext, reset: Bool) {
        if reset {
            // Set at once: the option is set on the channel's loop, which this is.
            _ = (context.channel as? any SocketOptionProvider)?.setSoLinger(linger(l_onoff: 1, l_linger: 0))
        }
        context.close(promise: nil)
    }

    @discardableResult
    private func write(
        _ context: ChannelHandlerContext,
        _ text: String,
        _ bytes: [UInt8] = [],
        _ tail: String = ""
    )
        -> EventLoopFuture<Void>
    {
        var buffer = context.channel.allocator.buffer(capacity: text.utf8.count + bytes.count + tail.utf8.count)
        buffer.writeString(text)
        buffer.writeBytes(bytes)
        buffer.writeString(tail)
        return context.writeAndFlush(wrapOutboundOut(buffer))
    }

    private func chunks(_ body: [UInt8], size: Int) -> [UInt8] {
        var framed: [UInt8] = []
        var start = 0
        while start < body.count {
            let end = min(start + size, body.count)
            framed += Array(String(end - start, radix: 16).utf8) + [13, 10] + body[start..<end] + [13, 10]
            start = end
        }
        return framed
    }

    private func pieces(of body: [UInt8], count: Int) -> [[UInt8]] {
        let size = max(1, (body.count + count - 1) / count)
        return stride(from: 0, to: body.count, by: size).map { Array(body[$0..<min($0 + size, body.count)]) }
    }
}
