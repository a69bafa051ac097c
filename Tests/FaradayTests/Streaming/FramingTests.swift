import Foundation
import Testing

@testable import Faraday

@Suite(.timeLimit(.minutes(1))) struct FramingTests {
    /// The frames of `stream` fed to a fresh framer in the given pieces.
    private func frames(_ streaming: Streaming, _ pieces: [Data]) throws -> [Frame] {
        var framer = streaming.makeFramer()
        var frames: [Frame] = []
        for piece in pieces { frames += try framer.frames(from: piece) }
        return frames + (try framer.finish())
    }

    private func bodies(_ frames: [Frame]) -> [String] { frames.map { String(decoding: $0.body, as: UTF8.self) } }

    static let samples: [(String, Streaming, String)] = [
        ("lines", .lines, "one\r\ntwo\n\nthree"),
        ("ndjson", .ndjson, "{\"a\":1}\n\n{\"b\":[1,2]}\r\n{\"c\":\"é\"}\n"),
        (
            "sse", .serverSentEvents,
            "\u{FEFF}event: tick\r\ndata: a\rdata: b\n\n: comment\nid: 7\ndata: c\r\n\r\ndata: tail-without-end"
        ),
        ("json-seq", .jsonSequence, "\u{1E}{\"a\":1}\n\u{1E}[2,3]\n\u{1E}\"x\"\n"),
    ]

    /// A server dripping an unterminated line a byte at a time (issue 44): each chunk is searched
    /// alone, so a 1 MiB line costs about 1 MiB of work, not the half a tebibyte of rescanning and
    /// copying the pending bytes on every chunk took (this test did not end before the fix).
    /// `Benchmarks/FramingBenchmark` measures it.
    @Test(arguments: [
        ("lines", Streaming.lines, "", "\n"), ("sse", .serverSentEvents, "data: ", "\n\n"),
        ("json-seq", .jsonSequence, "\u{1E}", "\u{1E}"),
    ])
    func aLineDrippedAByteAtATimeCostsItsLength(
        _ name: String,
        _ kind: Streaming,
        _ open: String,
        _ close: String
    )
        throws
    {
        var streaming = kind
        streaming.maxFrameSize = 2 << 20
        var framer = streaming.makeFramer()
        let length = 1 << 20
        var frames = try framer.frames(from: Data(open.utf8))
        let byte = Data("x".utf8)
        for _ in 0..<length { frames += try framer.frames(from: byte) }
        frames += try framer.frames(from: Data(close.utf8))
        frames += try framer.finish()
        #expect(frames.count == 1, "\(name)")
        #expect(frames.first?.body.count == length)
        #expect(frames.first?.body.allSatisfy { $0 == UInt8(ascii: "x") } == true)
    }

    @Test(arguments: [("lines", Streaming.lines), ("sse", .serverSentEvents), ("json-seq", .jsonSequence)])
    func aDrippedLinePastTheLimitFailsAtTheLimit(_ name: String, _ kind: Streaming) throws {
        var streaming = kind
        streaming.maxFrameSize = 4096
        var framer = streaming.makeFramer()
        _ = try framer.frames(from: Data((kind.isJSONSequence ? "\u{1E}" : "").utf8))
        var fed = 0
        #expect {
            while fed <= 8192 {
                _ = try framer.frames(from: Data("y".utf8))
                fed += 1
            }
        } throws: { error in
            (error as? FaradayError)?.code == .frameTooLarge
        }
        #expect(fed <= 4097, "\(name) failed after \(fed) bytes")
    }

    @Test(arguments: samples.map(\.0))
    func framesDoNotDependOnWhereTheNetworkSplitsTheStream(_ name: String) throws {
        let (_, streaming, text) = try #require(Self.samples.first { $0.0 == name })
        let whole = Data(text.utf8)
        let expected = bodies(try frames(streaming, [whole]))
        #expect(!expected.isEmpty)
        for split in 0...whole.count {
            #expect(
                bodies(try frames(streaming, [whole.prefix(split), whole.dropFirst(split)])) == expected,
                "split at \(split)"
            )
        }
        #expect(bodies(try frames(streaming, whole.map { Data([$0]) })) == expected, "one byte at a time")
    }

    @Test func linesAndNDJSON() throws {
        #expect(bodies(try frames(.lines, [Data("one\r\ntwo\n\nthree".utf8)])) == ["one", "two", "", "three"])
        #expect(bodies(try frames(.ndjson, [Data("{\"a\":1}\n\n \n{\"b\":2}".utf8)])) == ["{\"a\":1}", "{\"b\":2}"])
    }

    @Test func jsonTextSequences() throws {
        #expect(
            bodies(try frames(.jsonSequence, [Data("\u{1E}{\"a\":1}\n\u{1E}[2,3]\n\u{1E}\u{1E}\"x\"\n".utf8)])) == [
                "{\"a\":1}", "[2,3]", "\"x\"",
            ]
        )
    }

    // MARK: Server-sent events (WHATWG examples)

    private func events(_ text: String) throws -> [ServerSentEvent] {
        try frames(.serverSentEvents, [Data(text.utf8)]).compactMap(\.event)
    }

    @Test func multiLineDataIsJoined() throws {
        #expect(try events("data: YHOO\ndata: +2\ndata: 10\n\n").map(\.data) == ["YHOO\n+2\n10"])
    }

    @Test func commentsIDsAndSpacesFollowTheSpec() throws {
        let parsed = try events(
            ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n"
        )
        #expect(parsed.map(\.data) == ["first event", "second event", " third event"])
        #expect(parsed.map(\.lastEventID) == ["1", "", ""])
    }

    @Test func emptyDataAndAnUnfinishedEvent() throws {
        #expect(try events("data\n\ndata\ndata\n\ndata:").map(\.data) == ["", "\n"])
        #expect(try events("data:test\n\ndata: test\n\n").map(\.data) == ["test", "test"])
    }

    @Test func typesRetryAndLineEndings() throws {
        let parsed = try events("\u{FEFF}event: add\rretry: 1500\r\ndata: 1\r\rretry: soon\ndata: 2\n\n")
        #expect(parsed.map(\.type) == ["add", "message"])
        #expect(parsed.map(\.retry) == [.milliseconds(1500), nil])
        #expect(parsed.map(\.data) == ["1", "2"])
    }

    // MARK: Hostile streams

    @Test(arguments: [Streaming.lines, .ndjson, .serverSentEvents, .jsonSequence])
    func aNeverEndingFrameIsStopped(_ streaming: Streaming) {
        var limited = streaming
        limited.maxFrameSize = 1000
        let prefix = streaming.kind.isJSONSequence ? Data([0x1E]) : Data()
        let chunks = [prefix] + Array(repeating: Data(repeating: UInt8(ascii: "x"), count: 100), count: 20)
        #expect {
            try frames(limited, chunks)
        } throws: { error in
            (error as? FaradayError)?.code == .frameTooLarge
        }
    }

    /// A fuzzing finding: a record longer than the limit, whole inside one chunk, was let through.
    @Test(arguments: [Streaming.lines, .ndjson, .serverSentEvents, .jsonSequence])
    func aLongFrameInsideOneChunkIsStopped(_ streaming: Streaming) {
        var limited = streaming
        limited.maxFrameSize = 100
        let long = String(repeating: "x", count: 150)
        let chunk: String
        switch streaming.kind {
        case .jsonSequence: chunk = "\u{1E}\"\(long)\"\n\u{1E}1\n"
        case .serverSentEvents: chunk = "data: \(long)\n\ndata: 1\n\n"
        default: chunk = "\(long)\n1\n"
        }
        #expect {
            try frames(limited, [Data(chunk.utf8)])
        } throws: { error in
            (error as? FaradayError)?.code == .frameTooLarge
        }
    }

    @Test func invalidUTF8InAnEventStreamIsDecodedAsReplacementCharacters() throws {
        let parsed = try frames(.serverSentEvents, [Data("data: a".utf8) + Data([0xFF, 0xFE]) + Data("b\n\n".utf8)])
        #expect(parsed.compactMap(\.event).map(\.data) == ["a\u{FFFD}\u{FFFD}b"])
    }

    @Test func theLastEventIDAndRetrySurviveTheEventsThatCarryThem() throws {
        let state = EventStreamState()
        var streaming = Streaming.serverSentEvents
        streaming.eventStreamState = state
        var first = streaming.makeFramer()
        // A retry before any event, then an id with no data: both count at once.
        _ = try first.frames(from: Data("retry: 1234\n\nid: 7\n\n".utf8))
        #expect(state.reconnectionTime == .milliseconds(1234))
        #expect(state.lastEventID == "7")
        // The next connection's events without an id carry the one before.
        var second = streaming.makeFramer()
        let events = try second.frames(from: Data("data: a\n\nid: 8\ndata: b\n\ndata: c\n\n".utf8)).compactMap(\.event)
        #expect(events.map(\.lastEventID) == ["7", "8", "8"])
        #expect(state.lastEventID == "8")
        // An empty id resets it, as the spec says.
        _ = try second.frames(from: Data("id\n\n".utf8))
        #expect(state.lastEventID == "")
    }
}

extension Streaming.Kind {
    var isJSONSequence: Bool {
        if case .jsonSequence = self { return true }
        return false
    }
}

extension Streaming {
    fileprivate var isJSONSequence: Bool {
        if case .jsonSequence = kind { return true }
        return false
    }
}
