import Faraday
import Foundation
import Testing

@Suite(.timeLimit(.minutes(1))) struct StreamControlTests {
    private func connection(
        _ chunks: [String],
        ending: StubResponse.Ending = .finish,
        _ handlers: [any Handler] = []
    ) throws -> (Connection, TestAdapter) {
        let stubs = TestAdapter()
        stubs.get("/v1/s") { _, _ in
            StubResponse(
                headers: [.contentType: "application/json"],
                body: ResponseBody(pieces: chunks.map { Data($0.utf8) }),
                ending: ending
            )
        }
        return (try makeConnection(handlers, adapter: stubs), stubs)
    }

    @Test func eachNDJSONFrameIsDecodedByDecodeJSON() async throws {
        let (connection, _) = try connection(["{\"n\":1}\n{\"n\"", ":2}\n{\"n\":3}\n"], [DecodeJSON.Handler()])
        var numbers: [Int] = []
        for try await env in connection.get("s", configure: { $0.options.streaming = .ndjson }).completions
        where !env.isFinal {
            numbers.append(env.json?["n"]?.int ?? -1)
        }
        #expect(numbers == [1, 2, 3])
    }

    @Test func maxFramesStopsTheStreamAndEndsNormally() async throws {
        let (connection, stubs) = try connection(["1\n2\n", "3\n4\n"], ending: .waitForCancellation)
        var streaming = Streaming.lines
        streaming.maxFrames = 3
        var frames: [String] = []
        var final: Env?
        for try await env in connection.get("s", configure: { $0.options.streaming = streaming }).completions {
            if env.isFinal { final = env } else { frames.append(env.response?.text ?? "") }
        }
        #expect(frames == ["1", "2", "3"])
        #expect(final?.error == nil)
        #expect(final?.isCancelled == false, "a stream that ended as asked was not cancelled (issue 45)")
        #expect(stubs.chunksSent == 2, "nothing was pulled past the third frame")
    }

    @Test func aCallbackStopsTheStream() async throws {
        let (connection, _) = try connection(["1\n2\n3\n4\n"], ending: .waitForCancellation)
        let seen = Recorder()
        let response = connection.get("s") { $0.options.streaming = .lines }.onComplete { env in
            seen.record(env.isFinal ? "final \(env.error?.code.description ?? "ok")" : env.response?.text ?? "")
            if env.response?.text == "2" { env.cancel() }
        }
        _ = try? await response.value
        #expect(seen.log.prefix(2) == ["1", "2"])
        #expect(seen.log.last == "final cancelled")
        #expect(seen.log.filter { $0.hasPrefix("final") }.count == 1)
    }

    @Test func anIdleStreamTimesOut() async throws {
        let (connection, _) = try connection(["1\n"], ending: .waitForCancellation)
        var streaming = Streaming.lines
        streaming.idleTimeout = .milliseconds(200)
        var frames = 0
        await #expect {
            for try await env in connection.get("s", configure: { $0.options.streaming = streaming }).completions
            where !env.isFinal {
                frames += 1
            }
        } throws: { error in
            (error as? FaradayError)?.code == .readTimeout
        }
        #expect(frames == 1)
    }

    @Test func serverSentEventsReachTheEnv() async throws {
        let (connection, _) = try connection(["event: greet\ndata: hi\nid: 9\n\n"])
        var events: [ServerSentEvent] = []
        for try await env in connection.get("s", configure: { $0.options.streaming = .serverSentEvents }).completions
        where !env.isFinal {
            if let event = env.serverSentEvent { events.append(event) }
            #expect(env.response?.text == "hi")
        }
        #expect(events == [ServerSentEvent(type: "greet", data: "hi", lastEventID: "9")])
    }

    @Test func anEventSourceKeepsTheLastEventIDAcrossReconnects() async throws {
        let stubs = TestAdapter()
        let attempts = Locked(0)
        let sent = Locked<[String]>([])
        // Each connection ends after its chunks; the fourth answers 204, which ends the source.
        let streams = ["id: 7\ndata: a\n\n", "data: b\n\n", "retry: 1\n\nid: 9\n\n", ""]
        stubs.get("/v1/events") { env, _ in
            let attempt = attempts.withLock { count in
                defer { count += 1 }
                return count
            }
            sent.withLock { $0.append(env.request.headers[HTTPField.Name("Last-Event-ID")!] ?? "none") }
            guard attempt < 3 else { return StubResponse(status: .noContent) }
            return StubResponse(
                headers: [.contentType: "text/event-stream"],
                body: ResponseBody(pieces: [Data(streams[attempt].utf8)])
            )
        }
        let connection = try makeConnection(adapter: stubs)
        var source = connection.eventSource("events")
        source.reconnectionTime = .milliseconds(1)
        var events: [ServerSentEvent] = []
        for try await event in source { events.append(event) }
        #expect(events.map(\.data) == ["a", "b"])
        #expect(events.map(\.lastEventID) == ["7", "7"], "an event without id keeps the one before")
        #expect(sent.withLock { $0 } == ["none", "7", "7", "9"], "sent after every reconnect, the id with no data too")
    }

    @Test func aCustomFramerCutsFixedSizeRecords() async throws {
        struct FixedSize: Framer {
            let size: Int
            var buffer = Data()
            mutating func frames(from chunk: Data) -> [Data] {
                buffer.append(chunk)
                var frames: [Data] = []
                while buffer.count >= size {
                    frames.append(Data(buffer.prefix(size)))
                    buffer = Data(buffer.dropFirst(size))
                }
                return frames
            }
            func finish() -> [Data] { [] }
        }
        let (connection, _) = try connection(["abcde", "fgh"])
        var frames: [String] = []
        for try await env in connection.get(
            "s",
            configure: { $0.options.streaming = .custom { _ in FixedSize(size: 3) } }
        ).completions
        where !env.isFinal {
            frames.append(env.response?.text ?? "")
        }
        #expect(frames == ["abc", "def"])
    }
}
