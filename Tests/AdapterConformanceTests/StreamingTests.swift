import Faraday
import FaradayTestSupport
import Foundation
import Testing

extension AdapterConformance {
    @Suite(.timeLimit(.minutes(5))) struct StreamingTests {
        @Test(arguments: AdapterKind.allCases)
        func chunksArriveAsSeparateCompletionsInOrder(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, _ in
                let response = connection.get("chunked?count=5&size=16&interval=100") { $0.options.streaming = .chunks }
                var frames: [String] = []
                var sawFinal = false
                for try await env in response.completions {
                    if env.isFinal { sawFinal = true } else { frames.append(env.response?.text ?? "") }
                }
                let expected = (0..<5).map { index in
                    let label = "\(index):"
                    return label + String(repeating: "x", count: 16 - label.count)
                }
                #expect(frames.joined() == expected.joined())
                // Chunks sent 100 ms apart cannot all arrive in one read.
                #expect(frames.count > 1)
                #expect(sawFinal)
            }
        }

        /// `maxFrames` ends the call normally and stops the transfer: the connection of an endless
        /// stream closes, and the call is not cancelled (issue 45: it cancelled its own token).
        @Test(arguments: AdapterKind.allCases)
        func maxFramesStopsAnEndlessStreamWithoutCancellingTheCall(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, server in
                var streaming = Streaming.lines
                streaming.maxFrames = 3
                var frames = 0
                var final: Env?
                for try await env in connection.get("heartbeat?interval=10&limit=1000000", streaming: streaming)
                    .completions
                {
                    if env.isFinal { final = env } else { frames += 1 }
                }
                #expect(frames == 3)
                #expect(final?.error == nil && final?.isCancelled == false)
                // The server sees its connection close: the heartbeat would otherwise go on for hours.
                while server.connectionsClosed == 0 { try await Task.sleep(for: .milliseconds(10)) }
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func aGigabyteStreamsThroughWithBoundedMemory(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, _ in
                let total = 1 << 30
                let before = residentMemory()
                var received = 0
                var peak = before
                var patternHolds = true
                // URLSession on Linux cannot pause a transfer; give its queue room for a consumer that
                // falls behind for a moment on a loaded machine (still well under the bound below).
                let response = connection.get("bytes/\(total)") {
                    $0.options.streaming = .chunks
                    $0.options.maxBufferedBodySize = 128 << 20
                }
                for try await env in response.completions {
                    let body = env.body
                    if let first = body.first, first != UInt8(received % 251) { patternHolds = false }
                    received += body.count
                    if received % (64 << 20) < body.count { peak = max(peak, residentMemory()) }
                }
                #expect(received == total)
                #expect(patternHolds)
                // Bounded: a small fraction of the body. Not for URLSession on Linux, whose Foundation
                // queues what curl reads for the delegate without limit (see the Adapters article).
                if kind.isOnNIO || platformCanPauseURLSession {
                    #expect(peak - before < 256 << 20, "resident memory grew by \((peak - before) >> 20) MiB")
                }
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func aSlowConsumerHoldsTheServerBack(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, server in
                let total = 256 << 20
                let response = connection.get("bytes/\(total)") { $0.options.streaming = .chunks }
                var iterator = response.completions.makeAsyncIterator()
                var received = try await iterator.next()?.body.count ?? 0
                // Stop pulling for a while: without backpressure the whole body would be sent.
                try await Task.sleep(for: .milliseconds(500))
                if kind == .urlSession && !platformCanPauseURLSession {
                    // FoundationNetworking cannot pause a transfer, so the server is not held back,
                    // and chunks curl has read wait in Foundation's delegate queue, out of the
                    // adapter's reach (see the Adapters article). What the adapter guarantees: the
                    // whole body in order, or a clean .bodyTooLarge once the consumer is more than
                    // maxBufferedBodySize behind.
                    do {
                        while let env = try await iterator.next() { received += env.body.count }
                        #expect(received == total)
                    } catch {
                        #expect(isFaradayError(error, .bodyTooLarge))
                    }
                } else {
                    let sentWhilePaused = server.bodyBytesSent
                    #expect(
                        sentWhilePaused < total / 2,
                        "the server sent \(sentWhilePaused >> 20) MiB to a paused consumer"
                    )
                    while let env = try await iterator.next() { received += env.body.count }
                    #expect(received == total)
                }
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func theHeadArrivesBeforeTheBody(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, _ in
                let response = connection.get("stall") { $0.options.streaming = .chunks }
                let head = try await response.head
                #expect(head.status == .ok)
                var iterator = response.completions.makeAsyncIterator()
                let first = try await iterator.next()
                #expect(first?.response?.text == "first")
                response.cancel()
                await #expect {
                    try await response.value
                } throws: { error in
                    isFaradayError(error, .cancelled)
                }
            }
        }
    }
}
