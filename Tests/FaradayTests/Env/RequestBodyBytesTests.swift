import Foundation
import InMemoryLogging
import Logging
import Testing

@testable import Faraday

/// The "layer that reads the request body / encoder" row of the order table: a middleware gets the
/// bytes that go on the wire wherever it sits, for every encoder, and never a silent `nil`.
@Suite(.timeLimit(.minutes(1))) struct RequestBodyBytesTests {
    /// Signs the bytes of the request body as they go on the wire.
    private static let signer = OnRequest.Handler { env in
        let body = try await env.requestBodyBytes()
        env.request.headers[.signature] = "len=\(body.count) body=\(String(decoding: body, as: UTF8.self))"
    }

    private struct Payload: Encodable, Sendable {
        let userName: String
        let createdAt: Date
    }

    /// A stub that answers with the signature header and the body the adapter received.
    private func signatureEcho() -> TestAdapter {
        let stubs = TestAdapter()
        stubs.post("/v1/sign") { env, _ in
            let body = String(decoding: try env.request.body.bytes, as: UTF8.self)
            let type = env.request.headers[.contentType] ?? "-"
            return StubResponse(body: "\(env.request.headers[.signature] ?? "unsigned")\n\(type) \(body)")
        }
        return stubs
    }

    /// Above EncodeJSON the signer gets the bytes EncodeJSON's own encoder produces (snake case,
    /// seconds since 1970), the same the adapter sends; below it, the same again.
    @Test(arguments: [true, false])
    func aSignerSignsTheBytesOnTheWireWhereverTheEncoderSits(_ signerAbove: Bool) async throws {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = .sortedKeys
        let connection = try makeConnection(
            ordered(Self.signer, EncodeJSON.Handler(encoder: encoder), firstAbove: signerAbove),
            adapter: signatureEcho()
        )
        let payload = Payload(userName: "ada", createdAt: Date(timeIntervalSince1970: 0))
        let reply = try #require(try await connection.post("sign", body: .json(payload)).value.response?.text)
        let wire = #"{"created_at":0,"user_name":"ada"}"#
        #expect(reply == "len=\(wire.utf8.count) body=\(wire)\napplication/json \(wire)")
    }

    /// A value no encoder of the stack takes (JSON here) gets its default encoding's bytes; a form,
    /// URLEncoded's; a one-shot stream is read once, signed, and sent from memory.
    @Test func aSignerGetsDefaultEncodingsFormsAndStreams() async throws {
        let connection = try makeConnection([Self.signer, URLEncoded.Handler()], adapter: signatureEcho())
        let form = try #require(
            try await connection.post("sign", body: .form(["a": "1", "b": "x y"])).value.response?.text
        )
        #expect(form == "len=9 body=a=1&b=x+y\napplication/x-www-form-urlencoded a=1&b=x+y")
        let json = try #require(try await connection.post("sign", body: .json(["k": true])).value.response?.text)
        #expect(json == "len=10 body={\"k\":true}\napplication/json {\"k\":true}")
        let chunks = AsyncStream<Data> { continuation in
            continuation.yield(Data("ab".utf8))
            continuation.yield(Data("cd".utf8))
            continuation.finish()
        }
        let stream = try #require(try await connection.post("sign", body: .stream(chunks)).value.response?.text)
        #expect(stream == "len=4 body=abcd\napplication/octet-stream abcd")
    }

    /// Reading `body.bytes` above an encoder is a typed error that names the fix, never `nil`.
    @Test func readingBytesAboveAnEncoderNamesTheFix() async throws {
        let naiveSigner = OnRequest.Handler { env in
            env.request.headers[.signature] = "\(try env.request.body.bytes.count)"
        }
        let stubs = signatureEcho()
        let connection = try makeConnection([naiveSigner, EncodeJSON.Handler()], adapter: stubs)
        await #expect {
            try await connection.post("sign", body: .json(["k": 1])).value
        } throws: { error in
            guard let error = error as? FaradayError else { return false }
            return error.code == .invalidRequest && error.message.contains("env.encodeRequestBody()")
        }
        #expect(stubs.calls.isEmpty)
        let stream = try await makeConnection([Self.signer], adapter: stubs)
            .post("sign", body: .stream(AsyncStream<Data> { $0.finish() })).value
        #expect(stream.response?.text == "len=0 body=\n- ")
    }

    /// Above an encoder the logger shows the encoded body and its Content-Type, as below it.
    @Test(arguments: [true, false])
    func theLoggerShowsTheEncodedBodyWhereverTheEncoderSits(_ loggerAbove: Bool) async throws {
        let logs = InMemoryLogHandler()
        let logger = HTTPLogger.Handler(logger: Logger(label: "test") { _ in logs }, request: .bodies)
        let connection = try makeConnection(
            ordered(logger, EncodeJSON.Handler(), firstAbove: loggerAbove),
            adapter: signatureEcho()
        )
        _ = try await connection.post("sign", body: .json(["k": 1])).value
        let request = try #require(logs.entries.first?.metadata)
        guard case .dictionary(let headers)? = request["http.request.header"] else {
            Issue.record("no request headers in \(request)")
            return
        }
        #expect(headers["content-type"] == "application/json")
        #expect(request["http.request.body"] == #"{"k":1}"#)
    }
    /// Every encoder of the stack, above or below the signer: the signed bytes are the bytes the
    /// adapter sends, with the encoder's Content-Type.
    @Test(arguments: ["json", "form", "multipart", "propertyList"], [true, false])
    func everyEncoderGivesTheSignerTheWireBytes(_ kind: String, _ signerAbove: Bool) async throws {
        let (encoder, body, type): (any Handler, RequestBody, String) =
            switch kind {
            case "json": (EncodeJSON.Handler(), .json(["n": 1]), "application/json")
            case "form": (URLEncoded.Handler(), .form(["n": "1"]), "application/x-www-form-urlencoded")
            case "multipart": (Multipart.Handler(), .multipart([.text("n", "1")]), "multipart/form-data")
            default: (EncodePropertyList.Handler(), .propertyList(["n": 1]), "application/x-plist")
            }
        let digestSigner = OnRequest.Handler { env in
            env.request.headers[.signature] = try await env.requestBodyBytes().base64EncodedString()
        }
        let stubs = TestAdapter()
        stubs.post("/v1/sign") { env, _ in
            let wire = try env.request.body.bytes
            let matches = env.request.headers[.signature] == wire.base64EncodedString() && !wire.isEmpty
            return StubResponse(
                body: "\(matches ? "signed the wire bytes" : "mismatch") \(env.request.headers[.contentType] ?? "-")"
            )
        }
        let connection = try makeConnection(
            ordered(digestSigner, encoder, firstAbove: signerAbove),
            adapter: stubs
        )
        let reply = try #require(try await connection.post("sign", body: body).value.response?.text)
        #expect(reply.hasPrefix("signed the wire bytes \(type)"))
    }

    /// A middleware between the logger and the encoder sees the same body whether logging is on
    /// or off: the logger encodes a copy to show it.
    @Test(arguments: [Logger.Level.trace, .critical])
    func loggingDoesNotChangeWhatTheLayersBelowSee(_ level: Logger.Level) async throws {
        let bodyKind = OnRequest.Handler { env in
            env.request.headers[.signature] = env.request.body.value == nil ? "bytes" : "value"
        }
        var logger = Logger(label: "bodies") { _ in InMemoryLogHandler() }
        logger.logLevel = level
        let handlers: [any Handler] = [
            HTTPLogger.Handler(logger: logger, request: .bodies), bodyKind, EncodeJSON.Handler(),
        ]
        let reply = try await makeConnection(handlers, adapter: signatureEcho()).post("sign", body: .json(["k": 1]))
            .value
        #expect(reply.response?.text?.hasPrefix("value\n") == true)
    }

    /// A stream larger than the limit is a typed error before anything is sent.
    @Test func aStreamPastTheLimitIsBodyTooLarge() async throws {
        let smallSigner = OnRequest.Handler { env in _ = try await env.requestBodyBytes(upTo: 3) }
        let stubs = signatureEcho()
        let chunks = AsyncStream<Data> { continuation in
            continuation.yield(Data("abcd".utf8))
            continuation.finish()
        }
        await #expect {
            try await makeConnection([smallSigner], adapter: stubs).post("sign", body: .stream(chunks)).value
        } throws: { ($0 as? FaradayError)?.code == .bodyTooLarge }
        #expect(stubs.calls.isEmpty)
    }

    /// Above Retry the signer turns a one-shot stream into bytes, which every attempt can send;
    /// below it each attempt reads the stream, and the second finds it taken.
    @Test(arguments: [true, false])
    func aOneShotStreamAndRetry(_ signerAbove: Bool) async throws {
        let stubs = TestAdapter()
        let calls = Locked(0)
        stubs.post("/v1/sign") { env, _ in
            let call = calls.increment()
            return call == 1
                ? StubResponse(status: .serviceUnavailable) : StubResponse(body: try env.request.body.bytes)
        }
        var retry = Retry.Handler(statuses: [503], sleep: { _ in })
        retry.methods.insert(.post)
        let connection = try makeConnection(ordered(Self.signer, retry, firstAbove: signerAbove), adapter: stubs)
        let chunks = AsyncStream<Data> { continuation in
            continuation.yield(Data("once".utf8))
            continuation.finish()
        }
        let response = connection.post("sign", body: .stream(chunks))
        if signerAbove {
            #expect(try await response.value.response?.text == "once")
        } else {
            await #expect { try await response.value } throws: { ($0 as? FaradayError)?.code == .bodyNotReplayable }
        }
    }
}

extension HTTPField.Name {
    fileprivate static let signature = HTTPField.Name("X-Signature")!
}
