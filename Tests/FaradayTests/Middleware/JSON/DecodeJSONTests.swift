import Foundation
import Testing

@testable import Faraday

@Suite(.timeLimit(.minutes(1))) struct DecodeJSONTests {
    private func connection(
        _ stubs: TestAdapter,
        _ handler: DecodeJSON.Handler = DecodeJSON.Handler()
    ) throws -> Connection {
        try makeConnection([handler], adapter: stubs)
    }

    @Test func asksForJSONAndDecodesMatchingResponses() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/user") { env, _ in
            #expect(env.request.headers[.accept] == "application/json")
            return StubResponse(headers: [.contentType: "application/json; charset=utf-8"], body: #"{"id":7}"#)
        }
        stubs.get("/v1/problem") { _, _ in
            StubResponse(headers: [.contentType: "application/problem+json"], body: #"{"title":"x"}"#)
        }
        let connection = try connection(stubs)
        let env = try await connection.get("user").value
        #expect(env.json?["id"]?.int == 7)
        #expect(env.response?.text == #"{"id":7}"#)
        #expect(try await connection.get("problem").value.json?["title"]?.string == "x")
    }

    @Test func skipsOtherTypesEmptyBodiesAndBodilessStatuses() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/text") { _, _ in StubResponse(headers: [.contentType: "text/plain"], body: "{not json") }
        stubs.get("/v1/empty") { _, _ in StubResponse(headers: [.contentType: "application/json"]) }
        stubs.get("/v1/nocontent") { _, _ in
            StubResponse(status: .noContent, headers: [.contentType: "application/json"], body: "x")
        }
        stubs.stub(
            .head,
            .path("/v1/head"),
            response: StubResponse(headers: [.contentType: "application/json"], body: "x")
        )
        let connection = try connection(stubs)
        #expect(try await connection.get("text").value.json == nil)
        #expect(try await connection.get("empty").value.json == nil)
        #expect(try await connection.get("nocontent").value.json == nil)
        #expect(try await connection.head("head").value.json == nil)
    }

    @Test func aMalformedBodyIsAParsingErrorCarryingTheBody() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/bad") { _, _ in StubResponse(headers: [.contentType: "application/json"], body: #"{"id": 1,"#) }
        await #expect {
            try await connection(stubs).get("bad").value
        } throws: { error in
            guard let error = error as? FaradayError else { return false }
            return error.code == .parsingFailed && error.response?.text == #"{"id": 1,"#
        }
    }

    @Test func decodeUsesTheConfiguredDecoder() async throws {
        struct Event: Decodable, Equatable { let startedAt: Date }
        let stubs = TestAdapter()
        stubs.get("/v1/event") { _, _ in
            StubResponse(headers: [.contentType: "application/json"], body: #"{"started_at":"2026-11-22T00:00:00Z"}"#)
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        let event = try await connection(stubs, DecodeJSON.Handler(decoder: decoder)).get("event").decode(Event.self)
        #expect(event.startedAt == Date(timeIntervalSince1970: 1_795_305_600))
    }

    @Test func decodesEachFrameOfAStream() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/beats") { _, _ in
            StubResponse(
                headers: [.contentType: "application/json"],
                body: ResponseBody(pieces: (1...3).map { Data(#"{"count":\#($0)}"#.utf8) })
            )
        }
        var counts: [Int] = []
        for try await env in try connection(stubs).get("beats", configure: { $0.options.streaming = .chunks })
            .completions
        where !env.isFinal {
            counts.append(env.json?["count"]?.int ?? -1)
        }
        #expect(counts == [1, 2, 3])
    }

    /// The body is checked when the response completes; its `JSON` value is made when `env.json`
    /// first reads it, once for the env and every copy of it.
    @Test func theValueIsMadeWhenFirstReadOnceForEveryCopy() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/user") { _, _ in
            StubResponse(headers: [.contentType: "application/json"], body: #"{"id":7,"tags":["a","b"],"id":8}"#)
        }
        let env = try await connection(stubs).get("user").value
        let decoded = try #require(env[DecodedJSONKey.self])
        #expect(!decoded.isMade)
        let copy = env
        #expect(copy.json == ["id": 7, "tags": ["a", "b"]])  // a repeated name keeps its first value
        #expect(decoded.isMade)
        #expect(env.json == copy.json)
        #expect(String(describing: decoded) == #"{"id":7,"tags":["a","b"]}"#)
    }

    @Test func tasksReadingTheValueAtOnceAllGetIt() async {
        let decoded = DecodedJSON(checked: Data(#"{"list":[1,2,3],"name":"x"}"#.utf8))
        let values = await withTaskGroup(of: JSON.self) { group in
            for _ in 0..<16 { group.addTask { decoded.value } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(values.count == 16)
        #expect(values.allSatisfy { $0 == ["list": [1, 2, 3], "name": "x"] })
    }

    /// A decoder whose settings change the value (here its keys) makes it at once, by its settings.
    @Test func aDecoderWithAKeyStrategyMakesTheValueByIt() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/event") { _, _ in
            StubResponse(headers: [.contentType: "application/json"], body: #"{"started_at":"x"}"#)
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let env = try await connection(stubs, DecodeJSON.Handler(decoder: decoder)).get("event").value
        #expect(env[DecodedJSONKey.self]?.isMade == true)
        #expect(env.json == ["startedAt": "x"])
    }

    /// The same for a non-conforming float strategy: `"inf"` read as a number.
    @Test func aDecoderWithAFloatStrategyMakesTheValueByIt() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/x") { _, _ in StubResponse(headers: [.contentType: "application/json"], body: #"{"x":"inf"}"#) }
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "inf",
            negativeInfinity: "-inf",
            nan: "nan"
        )
        let env = try await connection(stubs, DecodeJSON.Handler(decoder: decoder)).get("x").value
        #expect(env[DecodedJSONKey.self]?.isMade == true)
        #expect(env.json?["x"]?.double == .infinity)
        // The plain decoder keeps the string, and makes the value only when read.
        let plain = try await connection(stubs).get("x").value
        #expect(plain[DecodedJSONKey.self]?.isMade == false)
        #expect(plain.json?["x"]?.string == "inf")
    }

    /// Escapes and non-ASCII text come out of the value made on first read as they went in.
    @Test func escapedAndNonASCIITextSurvivesTheCheckAndTheRead() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/x") { _, _ in
            StubResponse(
                headers: [.contentType: "application/json"],
                body: #"{"café":"naïve \u00e9 \ud83d\ude00 \"q\"\n","long":"ééééééééééééééééé"}"#
            )
        }
        let env = try await connection(stubs).get("x").value
        #expect(env.json?["café"]?.string == "naïve é 😀 \"q\"\n")
        #expect(env.json?["long"]?.string == String(repeating: "é", count: 17))
    }

    /// A frame of a stream that is not JSON fails the call at that frame, with its position.
    @Test func aMalformedFrameFailsTheCallThere() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/beats") { _, _ in
            StubResponse(
                headers: [.contentType: "application/json"],
                body: ResponseBody(pieces: [
                    Data(#"{"count":1}"#.utf8), Data(#"{"count":2,}"#.utf8), Data(#"{"count":3}"#.utf8),
                ])
            )
        }
        var counts: [Int] = []
        let error = await #expect(throws: FaradayError.self) {
            for try await env in try connection(stubs).get("beats", configure: { $0.options.streaming = .chunks })
                .completions
            where !env.isFinal {
                counts.append(env.json?["count"]?.int ?? -1)
            }
        }
        #expect(counts == [1])
        #expect(error?.code == .parsingFailed)
        #expect((error?.underlying as? JSONSyntaxError)?.offset == 11)
    }
}
