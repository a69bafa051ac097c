import Faraday
import Foundation
import Testing

@Suite(.timeLimit(.minutes(1))) struct RequestBodyTests {
    private func chunks(_ parts: [String]) -> AsyncStream<Data> {
        AsyncStream { continuation in
            for part in parts { continuation.yield(Data(part.utf8)) }
            continuation.finish()
        }
    }

    @Test func aOneShotBodyIsRefusedOnASecondCall() async throws {
        let stubs = TestAdapter()
        stubs.stub(.post, .path("/v1/upload"), body: .equals("abc"), response: StubResponse(status: .created))
        let connection = try makeConnection([CallTwice.Handler()], adapter: stubs)

        await #expect {
            try await connection.post("upload", body: .stream(chunks(["a", "b", "c"]))).value
        } throws: { error in
            (error as? FaradayError)?.code == .bodyNotReplayable
        }
        #expect(stubs.calls.count == 2)
    }

    @Test func aReplayableStreamIsSentAgainWhole() async throws {
        let stubs = TestAdapter()
        stubs.stub(.post, .path("/v1/upload"), body: .equals("abc"), response: StubResponse(status: .created))
        let connection = try makeConnection([CallTwice.Handler()], adapter: stubs)
        let body = RequestBody.stream(length: 3) { self.chunks(["a", "b", "c"]) }
        #expect(body.isReplayable)
        let env = try await connection.post("upload", body: body).value
        #expect(env.status == .created)
        #expect(stubs.calls.count == 2)
    }

    @Test func bodiesDescribeThemselves() throws {
        #expect(RequestBody.bytes(Data("xy".utf8)).length == 2)
        #expect(RequestBody.empty.isEmpty)
        #expect(RequestBody.stream(chunks([])).isReplayable == false)
        #expect(RequestBody.value(["a": 1]).value != nil)
    }

    @Test func aValueNoMiddlewareEncodedIsAnErrorBeforeSending() async throws {
        let stubs = TestAdapter()
        let connection = try makeConnection(adapter: stubs)
        await #expect {
            try await connection.post("x", body: .value(["a": 1])).value
        } throws: { error in
            (error as? FaradayError)?.code == .encodingFailed
        }
        #expect(stubs.calls.isEmpty, "refused before the adapter")
    }

    /// One body vocabulary: a stack without encoders still sends every value body, encoded by
    /// its default, with its content type.
    @Test func valueBodiesHaveADefaultEncodingWhenNoMiddlewareEncodesThem() async throws {
        struct Note: Codable, Sendable, Equatable { let text: String }
        let stubs = TestAdapter()
        stubs.post("/v1/x") { env, _ in
            let body = try await env.request.body.collect(upTo: 1 << 20)
            return StubResponse(
                body: "\(env.request.headers[.contentType] ?? "-")|\(String(decoding: body, as: UTF8.self))"
            )
        }
        let connection = try makeConnection(adapter: stubs)
        func sent(_ body: RequestBody) async throws -> String {
            try await connection.post("x", body: body).value.response?.text ?? ""
        }
        #expect(try await sent(.json(["a": 1])) == #"application/json|{"a":1}"#)
        #expect(try await sent(.json(Note(text: "hi"))) == #"application/json|{"text":"hi"}"#)
        #expect(try await sent(.form(["q": "a b"])) == "application/x-www-form-urlencoded|q=a+b")
        #expect(try await sent(.text("hi")) == "text/plain; charset=utf-8|hi")
        #expect(try await sent(.bytes(Data("raw".utf8))) == "application/octet-stream|raw")
        #expect(try await sent(.bytes(Data([0x42]), contentType: "image/png")) == "image/png|B")
        #expect(try await sent(.propertyList(Note(text: "hi"))).hasPrefix("application/x-plist|<?xml"))
        #expect(try await sent(.multipart([.text("a", "1")])).hasPrefix("multipart/form-data; boundary="))
    }

    @Test func theStacksEncoderAndTheRequestsContentTypeWin() async throws {
        let stubs = TestAdapter()
        stubs.post("/v1/x") { env, _ in
            let body = try await env.request.body.collect(upTo: 1 << 20)
            return StubResponse(
                body: "\(env.request.headers[.contentType] ?? "-")|\(String(decoding: body, as: UTF8.self))"
            )
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .prettyPrinted
        let connection = try makeConnection([EncodeJSON.Handler(encoder: encoder)], adapter: stubs)
        #expect(
            try await connection.post("x", body: .json(["a": 1])).value.response?.text
                == "application/json|{\n  \"a\" : 1\n}"
        )
        let typed = try await connection.post("x", headers: [.contentType: "text/csv"], body: .text("a,b")).value
        #expect(typed.response?.text == "text/csv|a,b")
    }

    @Test func collectingIsBounded() async throws {
        await #expect {
            try await RequestBody.stream(chunks(["abc", "def"])).collect(upTo: 4)
        } throws: { error in
            (error as? FaradayError)?.code == .bodyTooLarge
        }
    }
}
