// The event-stream parsing tests of the web-platform-tests (WPT), eventsource/format-*, ported to
// a table run against the server-sent-event framer.
//
// Source: https://github.com/web-platform-tests/wpt/tree/master/eventsource, read at these commits:
//   format-bom.js, format-comments.js, format-data-before-final-empty-line.js,
//   format-field-data.js, format-utf-8.js          65cfe0a7fe334326f94a18970a5466a647d3f7f8
//   format-bom-2.any.js, format-field-id-2.any.js  5f9fb0d9f20d97adc6e6c9ee47cb8f14558d52ed
//   format-utf-8.any.js                            3fa157157a4e01a30595f354765047a315e9626d
//   format-field-event-empty.htm, format-null-character.html
//                                                  500d1c779e50579345d3f9c1555c30d9f0af0f90
//   format-field-event.htm                         116d43a2e99125ce59e52a0272546db0c4685663
//   format-field-id.htm, resources/last-event-id.php
//                                                  96863b45b76653628b77b9bd1d5adf742b0bfade
//   format-field-id-3.htm, resources/last-event-id2.py
//                                                  b3ec19cc197ab727dcfea1c03f8af1e37e6a8007
//   format-field-id-null.htm                       2a453c099ae8571098abcbce44b1b0c17268e21c
//   format-field-retry.htm                         30127dcaea788e969f75e988457343319a71473a
//   format-field-retry-bogus.htm                   433f8fa3e0bff7836815a9a6079a062c2dab45c1
//   resources/message.php                          2b67758136746bc777034e30533f42d296033438
//   resources/message.py, resources/last-event-id.py (found by content; no commit id given)
// WPT is under the 3-Clause BSD License; its text is in Resources/wpt-eventsource/LICENSE.md.
//
// Each WPT test opens an EventSource on a server resource that sends the bytes of its query;
// `stream` is exactly what that resource sends: message.py (and message.php) answer
// `message + "\n\n" + "\n"`, or `message + "\n"` with `newline=none`. Only the parsing is ported:
// what a test checks of timing (the reconnection delay), of connection events (open, error) or of
// the Content-Type is left out, and said so at the case. A test that reconnects is ported as
// further streams fed to new framers sharing one EventStreamState, as EventSource's reconnections do.
// Not ported: format-mime-valid-bogus.htm (a MIME type check, no parsing), and the .htm copies of
// tests also ported from their .js/.any.js form (format-bom-2, format-field-data, format-utf-8).

import Foundation
import Testing

@testable import Faraday

@Suite struct WPTEventSourceFormatTests {
    /// One event as a page's listener sees it.
    struct SeenEvent: Sendable, Equatable {
        var type: String
        var data: String
        var lastEventID: String

        init(_ data: String, type: String = "message", id lastEventID: String = "") {
            self.type = type
            self.data = data
            self.lastEventID = lastEventID
        }
    }

    /// A later connection of the same EventSource: what the server sends and the events it gives.
    struct Reconnection: Sendable {
        var stream: [UInt8]
        var events: [SeenEvent]
        /// The last event ID when this stream ends (the next request's `Last-Event-ID`).
        var lastEventID: String = ""
    }

    struct Case: Sendable, CustomTestStringConvertible {
        /// The WPT file (and subtest) this case comes from.
        var name: String
        /// The bytes the server sends.
        var stream: [UInt8]
        var events: [SeenEvent]
        /// The last event ID when `stream` ends (the next request's `Last-Event-ID`).
        var lastEventID: String = ""
        /// The reconnection time at the very end, `nil` when no valid `retry:` was read.
        var reconnectionMilliseconds: Int64? = nil
        var reconnections: [Reconnection] = []

        var testDescription: String { name }

        var expected: Outcome {
            Outcome(
                connections: [ConnectionOutcome(events: events, lastEventID: lastEventID)]
                    + reconnections.map { ConnectionOutcome(events: $0.events, lastEventID: $0.lastEventID) },
                reconnectionTime: reconnectionMilliseconds.map { Duration.milliseconds($0) }
            )
        }
    }

    /// What one connection gave: its events, and the last event ID left in the state at its end.
    struct ConnectionOutcome: Equatable {
        var events: [SeenEvent]
        var lastEventID: String
    }

    /// What a run gave: each connection's outcome, and the reconnection time at the end.
    struct Outcome: Equatable {
        var connections: [ConnectionOutcome]
        var reconnectionTime: Duration?
    }

    // MARK: Bytes

    private static func bytes(_ parts: [UInt8]...) -> [UInt8] { parts.flatMap { $0 } }
    private static func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }

    private static let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
    private static let cr: [UInt8] = [0x0D]
    private static let nul: [UInt8] = [0x00]
    /// U+2026 HORIZONTAL ELLIPSIS in UTF-8: last-event-id.py's (and .php's) id.
    private static let ellipsis: [UInt8] = [0xE2, 0x80, 0xA6]
    /// format-comments.js's `longstring`: 2 * 1024 x's.
    private static let longString = [UInt8](repeating: UInt8(ascii: "x"), count: 2 * 1024)

    /// What resources/message.py sends for `message=` (and `newline=none`).
    private static func message(_ parts: [UInt8]..., newlineNone: Bool = false) -> [UInt8] {
        parts.flatMap { $0 } + ascii(newlineNone ? "\n" : "\n\n\n")
    }

    /// What resources/last-event-id.py sends to a request without `Last-Event-ID`.
    private static func lastEventIDPy(idvalue: [UInt8]) -> [UInt8] {
        bytes(ascii("id: "), idvalue, ascii("\nretry: 200\ndata: hello\n\n"))
    }

    // MARK: Cases

    static let cases: [Case] = [
        // A BOM is skipped at the start of the stream only: later, "\u{FEFF}data" is an unknown field.
        Case(
            name: "format-bom.js",
            stream: message(bom, ascii("data:1\n\n"), bom, ascii("data:2\n\ndata:3")),
            events: [SeenEvent("1"), SeenEvent("3")]
        ),
        // Only the first of two BOMs is skipped, so the first event has no data field.
        Case(
            name: "format-bom-2.any.js",
            stream: message(bom, bom, ascii("data:1\n\ndata:2\n\ndata:3")),
            events: [SeenEvent("2"), SeenEvent("3")]
        ),
        // Comments (one holding U+0000, long ones) between data lines, and CR, LF and CRLF line ends.
        Case(
            name: "format-comments.js",
            stream: message(
                bytes(ascii("data:1"), cr, ascii(":"), nul, ascii("\n:"), cr, ascii("\n")),
                bytes(ascii("data:2\n:"), longString, cr),
                bytes(ascii("data:3\n:data:fail"), cr, ascii(":"), longString, ascii("\n")),
                ascii("data:4\n"),
                newlineNone: true
            ),
            events: [SeenEvent("1\n2\n3\n4")]
        ),
        // The event left unfinished at the end is dropped, and its id never becomes the last event
        // ID: the reconnection (after retry: 1000) sends no Last-Event-ID and its test1 has id "".
        Case(
            name: "format-data-before-final-empty-line.js",
            stream: message(ascii("retry:1000\ndata:test1\n\nid:test\ndata:test2"), newlineNone: true),
            events: [SeenEvent("test1")],
            reconnectionMilliseconds: 1000,
            reconnections: [
                Reconnection(
                    stream: message(ascii("retry:1000\ndata:test1\n\nid:test\ndata:test2"), newlineNone: true),
                    events: [SeenEvent("test1")]
                )
            ]
        ),
        // "data:" and "data" give an empty data line; two of them give "\n".
        Case(
            name: "format-field-data.js",
            stream: message(ascii("data:\n\ndata\ndata\n\ndata:test")),
            events: [SeenEvent(""), SeenEvent("\n"), SeenEvent("test")]
        ),
        // An empty event type (after the one space is stripped) is "message".
        Case(
            name: "format-field-event-empty.htm",
            stream: message(ascii("event: \ndata:data")),
            events: [SeenEvent("data")]
        ),
        // The event type applies to its own event only.
        Case(
            name: "format-field-event.htm",
            stream: message(ascii("event:test\ndata:x\n\ndata:x")),
            events: [SeenEvent("x", type: "test"), SeenEvent("x")]
        ),
        // A non-ASCII id, kept across a reconnection, whose stream (the server echoing
        // Last-Event-ID) has no id field. last-event-id.php also prints the blank line after `?>`.
        Case(
            name: "format-field-id.htm",
            stream: bytes(ascii("id: "), ellipsis, ascii("\nretry: 200\ndata: hello\n\n\n")),
            events: [SeenEvent("hello", id: "\u{2026}")],
            lastEventID: "\u{2026}",
            reconnectionMilliseconds: 200,
            reconnections: [
                Reconnection(
                    stream: bytes(ascii("data: "), ellipsis, ascii("\n\n\n")),
                    events: [SeenEvent("\u{2026}", id: "\u{2026}")],
                    lastEventID: "\u{2026}"
                )
            ]
        ),
        // The same with last-event-id.py and two reconnections.
        Case(
            name: "format-field-id-2.any.js",
            stream: lastEventIDPy(idvalue: ellipsis),
            events: [SeenEvent("hello", id: "\u{2026}")],
            lastEventID: "\u{2026}",
            reconnectionMilliseconds: 200,
            reconnections: Array(
                repeating: Reconnection(
                    stream: bytes(ascii("data: "), ellipsis, ascii("\n\n")),
                    events: [SeenEvent("\u{2026}", id: "\u{2026}")],
                    lastEventID: "\u{2026}"
                ),
                count: 2
            )
        ),
        // An id persists to the events after it (last-event-id2.py?type=1).
        Case(
            name: "format-field-id-3.htm: persists",
            stream: ascii("id: 1\ndata: 1\n\ndata:2\n\n"),
            events: [SeenEvent("1", id: "1"), SeenEvent("2", id: "1")],
            lastEventID: "1"
        ),
        // A new id replaces it and persists in turn (type=2).
        Case(
            name: "format-field-id-3.htm: changes and persists",
            stream: ascii("id: 1\ndata: 1\n\nid: 2\ndata:2\n\ndata:3\n\n"),
            events: [SeenEvent("1", id: "1"), SeenEvent("2", id: "2"), SeenEvent("3", id: "2")],
            lastEventID: "2"
        ),
        // An empty id resets it (type=3).
        Case(
            name: "format-field-id-3.htm: resets",
            stream: ascii("id: 1\ndata: 1\n\nid:\ndata:2\n\ndata:3\n\n"),
            events: [SeenEvent("1", id: "1"), SeenEvent("2"), SeenEvent("3")],
            lastEventID: ""
        ),
        // An id holding U+0000 is ignored (WHATWG HTML: "If the field value does not contain U+0000
        // NULL"), so no Last-Event-ID is sent and the reconnection gets the same stream again. The WPT
        // version read expects "\0\0" as the first event's lastEventId; this follows the spec, as that
        // test's own second half (lastEventId "" after the reconnection) does.
        Case(
            name: "format-field-id-null.htm",
            stream: lastEventIDPy(idvalue: bytes(nul, nul)),
            events: [SeenEvent("hello")],
            reconnectionMilliseconds: 200,
            reconnections: [
                Reconnection(stream: lastEventIDPy(idvalue: bytes(nul, nul)), events: [SeenEvent("hello")])
            ]
        ),
        // A retry value that is not all digits is ignored; the one before stays. (The WPT test times
        // the reconnection, 2000 ms; only the parsed reconnection time is checked here.)
        Case(
            name: "format-field-retry-bogus.htm",
            stream: message(ascii("retry:2000\nretry:1000x\ndata:x")),
            events: [SeenEvent("x")],
            reconnectionMilliseconds: 2000
        ),
        // A leading zero is decimal, not octal. (Timed in WPT; the parsed value is checked here.)
        Case(
            name: "format-field-retry.htm",
            stream: message(ascii("retry:02000\ndata:x")),
            events: [SeenEvent("x")],
            reconnectionMilliseconds: 2000
        ),
        // U+0000 in data is kept. (The WPT test also expects no error event; not ported.)
        Case(
            name: "format-null-character.html",
            stream: message(ascii("data:"), nul, ascii("\n\n")),
            events: [SeenEvent("\u{0}")]
        ),
        // The stream is UTF-8 whatever the charset of its Content-Type (text/event-stream;
        // charset=windows-1252 in WPT, which the framer never sees; the error-event check is not ported).
        Case(
            name: "format-utf-8.any.js",
            stream: message(ascii("data:ok"), ellipsis),
            events: [SeenEvent("ok\u{2026}")]
        ),
    ]

    // MARK: Running

    /// Feeds the case's stream, then each reconnection's, each to a framer of its own sharing one
    /// state, as an EventSource's connections do, every stream cut into the pieces that `cut` gives.
    static func run(_ testCase: Case, cut: ([UInt8]) -> [[UInt8]]) throws -> Outcome {
        let state = EventStreamState()
        var streaming = Streaming.serverSentEvents
        streaming.eventStreamState = state
        var connections: [ConnectionOutcome] = []
        for stream in [testCase.stream] + testCase.reconnections.map(\.stream) {
            var framer = streaming.makeFramer()
            var frames: [Frame] = []
            for piece in cut(stream) { frames += try framer.frames(from: Data(piece)) }
            frames += try framer.finish()
            let events = frames.compactMap(\.event).map { SeenEvent($0.data, type: $0.type, id: $0.lastEventID) }
            connections.append(ConnectionOutcome(events: events, lastEventID: state.lastEventID))
        }
        return Outcome(connections: connections, reconnectionTime: state.reconnectionTime)
    }

    @Test(arguments: cases)
    func theWholeStreamGivesTheEventsWPTExpects(_ testCase: Case) throws {
        let outcome = try Self.run(testCase) { [$0] }
        let expected = testCase.expected
        #expect(outcome.connections.map(\.events) == expected.connections.map(\.events))
        #expect(outcome.connections.map(\.lastEventID) == expected.connections.map(\.lastEventID))
        #expect(outcome.reconnectionTime == expected.reconnectionTime)
    }

    @Test(arguments: cases)
    func theEventsDoNotDependOnWhereTheStreamIsSplit(_ testCase: Case) throws {
        let expected = testCase.expected
        var differing: [Int] = []
        for split in 0...testCase.stream.count {
            let outcome = try Self.run(testCase) { [Array($0.prefix(split)), Array($0.dropFirst(split))] }
            if outcome != expected { differing.append(split) }
        }
        #expect(differing.isEmpty, "the outcome differs when the stream is split at \(differing)")
        let byteByByte = try Self.run(testCase) { stream in stream.map { [$0] } }
        #expect(byteByByte == expected, "one byte at a time")
    }
}
