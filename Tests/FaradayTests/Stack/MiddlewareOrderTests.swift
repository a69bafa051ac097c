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
    /// A Retry that retries 503 without waiting, made for each use: a handler holds its retry
    /// budget, and the tests of this suite run in parallel; one budget for all of them ran out
    /// and refused a retry (the Timeout-below-Retry test then saw its attempt's timeout).
    private static var noWait: Retry.Handler { Retry.Handler(statuses: [503], sleep: { _ in }) }
    /// ``noWait`` retrying `.callTimeout` too.
    private static var retryingTimeouts: Retry.Handler {
        var retry = noWait
        retry.errors.insert(.callTimeout)
        return retry
    }

    // MARK: Retry / RaiseError: the same

    /// The README's stack (Authorization, Retry, RaiseError) and the reverse order both retry a
    /// 503: Retry decides on the head, before RaiseError's hook turns the status into an error.
    @Test(arguments: [true, false])
    func retryRetriesItsStatusesWhereverRaiseErrorSits(_ retryAbove: Bool) async throws {
        let stubs = TestAdapter()
        let calls = Locked(0)
        stubs.stub(.get, .path("/v1/x")) { _, _ in
            let call = calls.increment()
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
            let call = endCalls.increment()
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
    /// it, each attempt, so the hanging attempt is cut and retried (by a Retry that retries
    /// `.callTimeout`: not the default, the code also ends a call past `RequestOptions.timeout`).
    @Test(arguments: [true, false])
    func timeoutAgainstRetry(_ timeoutAbove: Bool) async throws {
        let stubs = TestAdapter()
        let calls = Locked(0)
        stubs.get("/v1/x") { _, _ in
            let call = calls.increment()
            return call == 1 ? .noResponse : StubResponse(body: "ok")
        }
        let connection = try makeConnection(
            // Seconds that the hanging attempt waits out; long enough that the answering attempt,
            // on a machine loaded by the whole suite (one second was not, once), never meets it.
            ordered(Timeout.Handler(.seconds(3)), Self.retryingTimeouts, firstAbove: timeoutAbove),
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

    /// A layer that observes calls (Instrumentation, HTTPLogger) sees one call above Retry or
    /// FollowRedirects, and every attempt or hop below it.
    @Test(arguments: [true, false], [true, false])
    func anObserverSeesOneCallAboveAndEveryAttemptBelow(_ observerAbove: Bool, _ retrying: Bool) async throws {
        func stubs() -> TestAdapter {
            let stubs = TestAdapter()
            let calls = Locked(0)
            stubs.get("/v1/x") { _, _ in
                let call = calls.increment()
                guard call == 1 else { return StubResponse(body: "ok") }
                return retrying
                    ? StubResponse(status: .serviceUnavailable)
                    : StubResponse(status: .found, headers: [.location: "/v1/x?2"])
            }
            return stubs
        }
        let multiplier: any Handler = retrying ? Self.noWait : FollowRedirects.Handler()
        let counter = CallCounter()
        let instrumented = try makeConnection(
            ordered(Instrumentation.Handler(monitors: [counter]), multiplier, firstAbove: observerAbove),
            adapter: stubs()
        )
        #expect(try await instrumented.get("x").value.response?.text == "ok")
        #expect(counter.started == (observerAbove ? 1 : 2))

        let logs = InMemoryLogHandler()
        let logger = HTTPLogger.Handler(logger: Logger(label: "order") { _ in logs })
        let logged = try makeConnection(ordered(logger, multiplier, firstAbove: observerAbove), adapter: stubs())
        #expect(try await logged.get("x").value.response?.text == "ok")
        let requestLines = logs.entries.filter { "\($0.message)".hasPrefix("→") }
        #expect(requestLines.count == (observerAbove ? 1 : 2))
    }

    /// Every event an Instrumentation layer's monitor hears, in order.
    private final class EventLog: EventMonitor {
        private let events = Locked<[String]>([])
        var log: [String] { events.withLock { $0 } }
        private func add(_ event: String) { events.withLock { $0.append(event) } }
        func callStarted(_ call: CallInfo) { add("started") }
        func attemptStarted(_ call: CallInfo, attempt: Int) { add("attempt \(attempt)") }
        func retryScheduled(_ call: CallInfo, attempt: Int, delay: Duration) { add("retry") }
        func responseHeadReceived(_ call: CallInfo, response: ResponseData) { add("head \(response.status.code)") }
        func callFinished(_ call: CallInfo, response: ResponseData, bytes: Int) { add("finished \(bytes)") }
        func callFailed(_ call: CallInfo, error: FaradayError) { add("failed \(error.code)") }
    }

    /// Two observers of one call, one above a Retry and one below it, each hear their own layer's
    /// events once, and the call's number is the same for all of them; two loggers write to their
    /// own logger only.
    @Test func observersAboveAndBelowARetryEachHearTheirOwnEvents() async throws {
        let stubs = TestAdapter()
        let calls = Locked(0)
        stubs.get("/v1/x") { _, _ in
            calls.increment() == 1 ? StubResponse(status: .serviceUnavailable) : StubResponse(body: "ok")
        }
        let (above, below) = (EventLog(), EventLog())
        let ids = Locked<Set<Int>>([])
        struct IDs: EventMonitor {
            let ids: Locked<Set<Int>>
            func callStarted(_ call: CallInfo) { ids.withLock { _ = $0.insert(call.id) } }
        }
        let (upperLogs, lowerLogs) = (InMemoryLogHandler(), InMemoryLogHandler())
        var quiet = Logger(label: "quiet") { _ in upperLogs }
        quiet.logLevel = .warning
        let connection = try makeConnection(
            [
                Instrumentation.Handler(monitors: [above, IDs(ids: ids)]),
                HTTPLogger.Handler(logger: quiet),
                Self.noWait,
                Instrumentation.Handler(monitors: [below, IDs(ids: ids)]),
                HTTPLogger.Handler(logger: Logger(label: "lower") { _ in lowerLogs }),
            ],
            adapter: stubs
        )
        #expect(try await connection.get("x").value.response?.text == "ok")
        #expect(above.log == ["started", "attempt 1", "retry", "attempt 2", "head 200", "finished 2"])
        #expect(below.log == ["started", "head 503", "failed cancelled", "started", "head 200", "finished 2"])
        #expect(ids.withLock { $0.count } == 1, "one call, one number")
        #expect(upperLogs.entries.isEmpty, "a logger whose level is off writes nothing, not even the lower one's lines")
        #expect(lowerLogs.entries.count == 4)
        let lowerIDs = Set(lowerLogs.entries.map { "\($0.metadata["faraday.call.id"] ?? "")" })
        #expect(lowerIDs == ["\(ids.withLock { $0.first ?? 0 })"])
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

    // MARK: DecodeJSON / HTTPCache: above only

    /// Above the cache, DecodeJSON decodes a hit as it decodes a miss (issue 45: the Caching
    /// article's stack put it below, and every hit came back with `env.json == nil`).
    @Test func decodeJSONAboveHTTPCacheDecodesHits() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/user") { _, _ in
            StubResponse(headers: [.contentType: "application/json", .cacheControl: "max-age=60"], body: #"{"id":7}"#)
        }
        let connection = try makeConnection([DecodeJSON.Handler(), HTTPCache.Handler()], adapter: stubs)
        let miss = try await connection.get("user").value
        let hit = try await connection.get("user").value
        #expect(miss.cacheStatus == .miss && hit.cacheStatus == .hit)
        #expect(miss.json?["id"]?.int == 7 && hit.json?["id"]?.int == 7)
        #expect(stubs.calls.count == 1)
    }

    /// Below it, hits would skip the decoder: the first request fails before anything is sent.
    @Test func decodeJSONBelowHTTPCacheIsRefusedOnFirstUse() async throws {
        let stubs = TestAdapter()
        let connection = try makeConnection([HTTPCache.Handler(), DecodeJSON.Handler()], adapter: stubs)
        let error = await #expect(throws: FaradayError.self) { try await connection.get("user").value }
        #expect(error?.code == .misplacedHandler)
        #expect(error?.message.contains("Put DecodeJSON.Handler above HTTPCache.Handler") == true)
        #expect(stubs.calls.isEmpty)
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
