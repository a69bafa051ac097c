import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import FaradayAsyncHTTPClient

extension AdapterConformance {
    /// The order `AnswerEndAfterRequestEnd` hands events on in, event by event; the whole calls
    /// are in `EarlyAnswerTests`.
    @Suite struct AnswerEndAfterRequestEndTests {
        private let channel = EmbeddedChannel(handler: AnswerEndAfterRequestEnd())

        init() throws {
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 80)).wait()
        }

        /// Writes a request's head and `bodyBytes` of its body, its `Content-Length` 3, and reads
        /// a whole `200` answer.
        private func answerWhileWriting(bodyBytes: Int) throws {
            var head = HTTPRequestHead(version: .http1_1, method: .PUT, uri: "/c/put")
            head.headers.add(name: "content-length", value: "3")
            try channel.writeOutbound(HTTPClientRequestPart.head(head))
            try channel.writeOutbound(
                HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(repeating: 1, count: bodyBytes)))
            )
            try channel.writeInbound(HTTPClientResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok)))
            try channel.writeInbound(HTTPClientResponsePart.end(nil))
        }

        private func readEnds() throws -> Int {
            var ends = 0
            while let part = try channel.readInbound(as: HTTPClientResponsePart.self) {
                if case .end = part { ends += 1 }
            }
            return ends
        }

        @Test func aCloseAfterAWholeRequestWaitsForTheRequestsEnd() throws {
            try answerWhileWriting(bodyBytes: 3)
            #expect(try readEnds() == 0)

            channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
            #expect(channel.isActive)
            #expect(try readEnds() == 0)

            try channel.writeOutbound(HTTPClientRequestPart.end(nil))
            #expect(try readEnds() == 1)
            channel.embeddedEventLoop.run()
            #expect(!channel.isActive)
        }

        @Test func aCloseBeforeTheBodyWentOutClosesAtOnce() throws {
            try answerWhileWriting(bodyBytes: 2)
            channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
            #expect(!channel.isActive)
            // The held end is handed on as the connection goes.
            #expect(try readEnds() == 1)
        }

        @Test func aCloseOfAnIdleConnectionClosesAtOnce() throws {
            channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
            #expect(!channel.isActive)
        }

        @Test func noRequestEndClosesAtTheDeadline() throws {
            try answerWhileWriting(bodyBytes: 3)
            channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
            channel.embeddedEventLoop.advanceTime(by: .seconds(1))
            #expect(!channel.isActive)
            #expect(try readEnds() == 1)
        }
    }
}
