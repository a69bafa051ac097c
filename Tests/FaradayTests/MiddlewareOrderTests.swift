import Foundation
import InMemoryLogging
import Logging
import Testing

@testable import Faraday

/// One test per row of the order table in *The middleware stack*: each pair of built-in middleware
/// whose relative order could matter, in both orders. Where the table says "the same", both orders
/// give the same result; where it says "a choice", each order does what its cell says; where an
/// order cannot work, the first request fails with `.misplacedHandler` and sends nothing.
@Suite(.timeLimit(.minutes(1))) struct MiddlewareOrderTests {
    /// The handlers with `first` above `second`, or below it.
    private func ordered(_ first: any Handler, _ second: any Handler, firstAbove: Bool) -> [any Handler] {
        firstAbove ? [first, second] : [second, first]
    }

    private static let noWait = Retry.Handler(statuses: [503], sleep: { _ in })

    // MARK: Retry / RaiseError: the same

    /// The README's stack (Authorization, Retry, RaiseError) and the reverse order both retry a
    /// 503: Retry decides on the head, before RaiseError's hook turns the status into an error.
    @Test(arguments: [true, false])
    func retryRetriesItsStatusesWhereverRaiseErrorSits(_ retryAbove: Bool) async throws {
        let stubs = TestAdapter()
        let calls = Locked(0)
        stubs.stub(.get, .path("/v1/x")) { _, _ in
            let call = calls.withLock {
                $0 += 1
                return $0
            }
            return call <= 2 ? StubResponse(status: .serviceUnavailable, body: "busy") : StubResponse(body: "ok")
        }
        let handlers =
            [Authorization.Handler(.bearer("t"))] + ordered(Self.noWait, RaiseError.Handler(), firstAbove: retryAbove)
        let env = try await makeConnection(handlers, adapter: stubs).get("x").value
        #expect(env.response?.text == "ok")
        #expect(calls.withLock { $0 } == 3)
    }

    /// A status Retry does not retry reaches RaiseError in either order, once.
    @Test(arguments: [true, false])
    func anUnretriedStatusIsRaisedOnceInEitherOrder(_ retryAbove: Bool) async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/x") { _, _ in StubResponse(status: .notFound, body: "gone") }
        let connection = try makeConnection(
            ordered(Self.noWait, RaiseError.Handler(), firstAbove: retryAbove),
            adapter: stubs
        )
        await #expect { try await connection.get("x").value } throws: {
            ($0 as? FaradayError)?.code == .resourceNotFound
        }
        #expect(stubs.calls.count == 1)
    }

    // MARK: Retry / FollowRedirects: a choice

    /// Above FollowRedirects a retry starts the chain again from its first URL; below it, the hop
    /// that failed is retried at its own URL.
    @Test(arguments: [true, false])
    func retryAgainstFollowRedirects(_ retryAbove: Bool) async throws {
        let stubs = TestAdapter()
        let endCalls = Locked(0)
        stubs.get("/v1/start") { _, _ in StubResponse(status: .found, headers: [.location: "/v1/end"]) }
        stubs.get("/v1/end") { _, _ in
            let call = endCalls.withLock {
                $0 += 1
                return $0
            }
            return call == 1 ? StubResponse(status: .serviceUnavailable) : StubResponse(body: "ok")
        }
        let connection = try makeConnection(
            ordered(Self.noWait, FollowRedirects.Handler(), firstAbove: retryAbove),
            adapter: stubs
        )
        #expect(try await connection.get("start").value.response?.text == "ok")
        let paths = stubs.calls.map(\.url.path)
        #expect(
            paths
                == (retryAbove
                    ? ["/v1/start", "/v1/end", "/v1/start", "/v1/end"] : ["/v1/start", "/v1/end", "/v1/end"])
        )
    }

    // MARK: Timeout / Retry: a choice

    /// Above Retry a deadline bounds the whole call, so an attempt that hangs ends the call; below
    /// it, each attempt, so the hanging attempt is cut and retried.
    @Test(arguments: [true, false])
    func timeoutAgainstRetry(_ timeoutAbove: Bool) async throws {
        let stubs = TestAdapter()
        let calls = Locked(0)
        stubs.get("/v1/x") { _, _ in
            let call = calls.withLock {
                $0 += 1
                return $0
            }
            return call == 1 ? .noResponse : StubResponse(body: "ok")
        }
        let connection = try makeConnection(
            ordered(Timeout.Handler(.milliseconds(200)), Self.noWait, firstAbove: timeoutAbove),
            adapter: stubs
        )
        if timeoutAbove {
            await #expect { try await connection.get("x").value } throws: {
                ($0 as? FaradayError)?.code == .callTimeout
            }
            #expect(calls.withLock { $0 } == 1)
        } else {
            #expect(try await connection.get("x").value.response?.text == "ok")
            #expect(calls.withLock { $0 } == 2)
        }
    }

    // MARK: Observers / Retry and FollowRedirects: a choice

    /// Counts the calls an Instrumentation layer sees start.
    private final class CallCounter: EventMonitor {
        private let count = Locked(0)
        var started: Int { count.withLock { $0 } }
        func callStarted(_ call: CallInfo) { count.withLock { $0 += 1 } }
    }

    /// A layer that observes calls (Instrumentation, HTTPLogger, TraceRequests, ConcurrencyLimit)
    /// sees one call above Retry or FollowRedirects, and every attempt or hop below it.
    @Test(arguments: [(true, true), (true, false), (false, true), (false, false)])
    func anObserverSeesOneCallAboveAndEveryAttemptBelow(_ observerAbove: Bool, _ retrying: Bool) async throws {
        let stubs = TestAdapter()
        let calls = Locked(0)
        stubs.get("/v1/x") { _, _ in
            let call = calls.withLock {
                $0 += 1
                return $0
            }
            guard call == 1 else { return StubResponse(body: "ok") }
            return retrying
                ? StubResponse(status: .serviceUnavailable)
                : StubResponse(status: .found, headers: [.location: "/v1/x?2"])
        }
        let counter = CallCounter()
        let multiplier: any Handler = retrying ? Self.noWait : FollowRedirects.Handler()
        let connection = try makeConnection(
            ordered(Instrumentation.Handler(monitors: [counter]), multiplier, firstAbove: observerAbove),
            adapter: stubs
        )
        #expect(try await connection.get("x").value.response?.text == "ok")
        #expect(counter.started == (observerAbove ? 1 : 2))
    }

    // MARK: Authorization / FollowRedirects: the same

    /// Credentials follow a redirect on the same origin and stay off once the chain has left it,
    /// back on the origin included, whether Authorization sits above or below FollowRedirects.
    @Test(arguments: [true, false])
    func credentialsStayOnTheirOriginInEitherOrder(_ authorizationAbove: Bool) async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/a") { _, _ in StubResponse(status: .found, headers: [.location: "/v1/b"]) }
        stubs.get("/v1/b") { _, _ in StubResponse(status: .found, headers: [.location: "https://other.example/c"]) }
        stubs.get("/c") { _, _ in StubResponse(status: .found, headers: [.location: "https://api.example.com/v1/d"]) }
        stubs.get("/v1/d") { _, _ in StubResponse(body: "ok") }
        let connection = try makeConnection(
            ordered(
                Authorization.Handler(.bearer("secret")),
                FollowRedirects.Handler(),
                firstAbove: authorizationAbove
            ),
            adapter: stubs
        )
        #expect(try await connection.get("a").value.response?.text == "ok")
        let sent = stubs.calls.map { "\($0.url.path) \($0.headers[.authorization] ?? "-")" }
        #expect(sent == ["/v1/a Bearer secret", "/v1/b Bearer secret", "/c -", "/v1/d -"])
    }

    // MARK: Cookies / FollowRedirects: below only

    /// Below FollowRedirects the cookie a login's 302 sets reaches the jar and the next hop.
    @Test func cookiesBelowFollowRedirectsCarryALoginAcrossItsRedirect() async throws {
        let stubs = TestAdapter()
        stubs.post("/v1/login") { _, _ in
            StubResponse(status: .found, headers: [.location: "/v1/home", .setCookie: "session=s1; Path=/"])
        }
        stubs.get("/v1/home") { env, _ in StubResponse(body: env.request.headers[.cookie] ?? "no cookie") }
        let jar = CookieJar()
        let connection = try makeConnection([FollowRedirects.Handler(), Cookies.Handler(jar: jar)], adapter: stubs)
        #expect(try await connection.post("login").value.response?.text == "session=s1")
    }

    /// Above it, that cookie would be lost: the first request fails before anything is sent and
    /// says where Cookies belongs.
    @Test func cookiesAboveFollowRedirectsAreRefusedOnFirstUse() async throws {
        let stubs = TestAdapter()
        let connection = try makeConnection(
            [Cookies.Handler(jar: CookieJar()), FollowRedirects.Handler()],
            adapter: stubs
        )
        await #expect {
            try await connection.post("login").value
        } throws: { error in
            guard let error = error as? FaradayError else { return false }
            return error.code == .misplacedHandler
                && error.message.contains("Put Cookies.Handler below FollowRedirects.Handler")
                && error.url?.absoluteString == "https://api.example.com/v1/login"
        }
        #expect(stubs.calls.isEmpty)
    }

    // MARK: Encoders / middleware that read the body: the same

    /// Signs the bytes of the request body as they go on the wire.
    private struct Signer: Middleware {
        let app: any App
        func onRequest(_ env: inout Env) async throws {
            let body = try await env.requestBodyBytes()
            env.request.headers[.signature] = "len=\(body.count) body=\(String(decoding: body, as: UTF8.self))"
        }
        struct Handler: Faraday.Handler {
            func build(app: any App) -> any App { Signer(app: app) }
        }
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
            ordered(Signer.Handler(), EncodeJSON.Handler(encoder: encoder), firstAbove: signerAbove),
            adapter: signatureEcho()
        )
        let payload = Payload(userName: "ada", createdAt: Date(timeIntervalSince1970: 0))
        let reply = try #require(try await connection.post("sign", body: .json(payload)).value.response?.text)
        let wire = #"{"created_at":0,"user_name":"ada"}"#
        #expect(reply == "len=\(wire.utf8.count) body=\(wire)\napplication/json \(wire)")
    }

    /// With no encoder in the stack the signer gets the default encoding's bytes; a form, the
    /// form encoder's; a one-shot stream is read once, signed, and sent from memory.
    @Test func aSignerGetsDefaultEncodingsFormsAndStreams() async throws {
        let connection = try makeConnection([Signer.Handler(), URLEncoded.Handler()], adapter: signatureEcho())
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
        struct NaiveSigner: Middleware {
            let app: any App
            func onRequest(_ env: inout Env) async throws {
                env.request.headers[.signature] = "\(try env.request.body.bytes.count)"
            }
        }
        struct NaiveHandler: Handler {
            func build(app: any App) -> any App { NaiveSigner(app: app) }
        }
        let stubs = signatureEcho()
        let connection = try makeConnection([NaiveHandler(), EncodeJSON.Handler()], adapter: stubs)
        await #expect {
            try await connection.post("sign", body: .json(["k": 1])).value
        } throws: { error in
            guard let error = error as? FaradayError else { return false }
            return error.code == .invalidRequest && error.message.contains("env.encodeRequestBody()")
        }
        #expect(stubs.calls.isEmpty)
        let stream = try await makeConnection([Signer.Handler()], adapter: stubs)
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
        let request = try #require(logs.entries.first.map { "\($0.message)" })
        #expect(request.contains("Content-Type: application/json"))
        #expect(request.contains(#"{"k":1}"#))
    }

    // MARK: Decoders / Decompression: the same

    /// `{"a":1}` gzipped.
    private static let gzippedJSON = Data([
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xab, 0x56, 0x4a, 0x54, 0xb2, 0x32, 0xac, 0x05,
        0x00, 0xaf, 0xac, 0x1b, 0x56, 0x07, 0x00, 0x00, 0x00,
    ])

    /// Decompression decodes the bytes before any hook sees them, so DecodeJSON reads the JSON
    /// whether it sits above or below it.
    @Test(arguments: [true, false])
    func aDecoderReadsADecompressedBodyInEitherOrder(_ decoderAbove: Bool) async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/x") { _, _ in
            StubResponse(headers: [.contentType: "application/json", .contentEncoding: "gzip"], body: Self.gzippedJSON)
        }
        let connection = try makeConnection(
            ordered(DecodeJSON.Handler(), Decompression.Handler(), firstAbove: decoderAbove),
            adapter: stubs
        )
        #expect(try await connection.get("x").value.json == ["a": 1])
    }

    // MARK: RaiseError / DecodeJSON: the same

    /// RaiseError reads the error document from the raw body, decoded or not.
    @Test(arguments: [true, false])
    func anErrorDocumentIsReadInEitherOrder(_ raiseErrorAbove: Bool) async throws {
        let stubs = TestAdapter()
        stubs.post("/v1/users") { _, _ in
            StubResponse(
                status: .unprocessableContent,
                headers: [.contentType: "application/json"],
                body: #"{"message":"name is taken"}"#
            )
        }
        let connection = try makeConnection(
            ordered(RaiseError.Handler(), DecodeJSON.Handler(), firstAbove: raiseErrorAbove),
            adapter: stubs
        )
        await #expect {
            try await connection.post("users", body: .json(["name": "ada"])).value
        } throws: { error in
            guard let error = error as? FaradayError else { return false }
            return error.code == .unprocessableEntity && error.document?.message == "name is taken"
        }
    }
}

extension HTTPField.Name {
    fileprivate static let signature = HTTPField.Name("X-Signature")!
}
