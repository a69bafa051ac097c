import Foundation
import HTTPTypes
import InMemoryLogging
import Logging
import Testing

@testable import Faraday

@Suite(.timeLimit(.minutes(1))) struct HTTPCacheFreshnessTests {
    /// One row: the response's fields, how long after it the second request comes, and whether
    /// the store answers it (no second request reaches the server).
    struct Row: Sendable, CustomTestStringConvertible {
        let fields: [(String, String)]
        let status: Int
        let after: TimeInterval
        let servedFromStore: Bool
        var testDescription: String {
            "\(status) \(fields.map { "\($0.0): \($0.1)" }.joined(separator: "; ")) +\(Int(after))s → \(servedFromStore ? "stored" : "asked")"
        }
        init(_ fields: [(String, String)], status: Int = 200, after: TimeInterval, _ servedFromStore: Bool) {
            (self.fields, self.status, self.after, self.servedFromStore) = (fields, status, after, servedFromStore)
        }
    }

    static let day: TimeInterval = 86_400
    static let rows: [Row] = [
        Row([("Cache-Control", "max-age=60")], after: 30, true),
        Row([("Cache-Control", "max-age=60")], after: 61, false),
        Row([("Cache-Control", "public, max-age=60")], after: 59, true),
        Row([("Cache-Control", "private, max-age=60")], after: 59, true),
        Row([("Cache-Control", "max-age=60"), ("Age", "50")], after: 9, true),
        Row([("Cache-Control", "max-age=60"), ("Age", "50")], after: 11, false),
        Row([("Cache-Control", "max-age=oops"), ("ETag", "\"a\"")], after: 0, false),
        Row([("Expires", "EXPIRES+60")], after: 59, true),
        Row([("Expires", "EXPIRES+60")], after: 61, false),
        Row([("Expires", "0"), ("ETag", "\"a\"")], after: 0, false),
        Row([("Cache-Control", "max-age=60"), ("Expires", "EXPIRES-60")], after: 30, true),  // max-age wins
        Row([("Last-Modified", "MODIFIED-1000")], after: 99, true),  // 10 % of 1,000 s
        Row([("Last-Modified", "MODIFIED-1000")], after: 101, false),
        Row([("Last-Modified", "MODIFIED-\(Int(day * 100))")], after: day - 1, true),  // capped at a day
        Row([("Last-Modified", "MODIFIED-\(Int(day * 100))")], after: day + 1, false),
        Row([("Last-Modified", "MODIFIED-1000")], status: 404, after: 50, true),
        Row([("Last-Modified", "MODIFIED-1000")], status: 302, after: 50, false),  // not heuristically cacheable
        Row([("Cache-Control", "max-age=60")], status: 302, after: 30, true),
        Row([("Cache-Control", "max-age=60")], status: 206, after: 30, false),
        Row([("Cache-Control", "no-store, max-age=60")], after: 1, false),
        Row([("Cache-Control", "no-cache, max-age=60"), ("ETag", "\"a\"")], after: 1, false),
        Row([("Cache-Control", "max-age=60"), ("Vary", "*")], after: 1, false),
        Row([("Cache-Control", "max-age=60"), ("Vary", "Accept")], after: 1, true),
        Row([("Cache-Control", "must-revalidate, max-age=60")], after: 30, true),
        Row([], after: 0, true),  // heuristically cacheable, but nothing to serve it by: not stored… see below
    ]

    @Test(arguments: rows.dropLast())
    func aResponseIsServedFromTheStoreWhileFresh(_ row: Row) async throws {
        let origin = CachedOrigin()
        let start = origin.clock.now
        let fields = row.fields.map { name, value -> (String, String) in
            if value.hasPrefix("EXPIRES"), let offset = Double(value.dropFirst(7)) {
                return (name, httpDate(start + offset))
            }
            if value.hasPrefix("MODIFIED-"), let offset = Double(value.dropFirst(9)) {
                return (name, httpDate(start - offset))
            }
            return (name, value)
        }
        origin.route("/v1/x") { call, _ in
            StubResponse(status: .init(code: row.status), headers: origin.headers(fields), body: "answer \(call)")
        }
        let (connection, _) = try origin.connection()
        let first = try await connection.get("x").value
        #expect(first.response?.text == "answer 1")
        origin.clock.advance(row.after)
        let second = try await connection.get("x").value
        #expect(origin.requests.count == (row.servedFromStore ? 1 : 2))
        #expect(second.response?.text == (row.servedFromStore ? "answer 1" : "answer 2"))
        if row.servedFromStore {
            #expect(second.cacheStatus == .hit)
        } else {
            #expect(second.cacheStatus != .hit && second.cacheStatus != .stale)
        }
    }

    @Test func aResponseWithNoFreshnessAndNoValidatorIsNotStored() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, _ in StubResponse(headers: origin.headers([]), body: "answer \(call)") }
        let (connection, _) = try origin.connection()
        #expect(try await connection.get("x").value.cacheStatus == .uncacheable)
        #expect(try await connection.get("x").value.response?.text == "answer 2")
    }

    @Test func aHitCarriesItsAgeAndTheStoredStatusAndHeaders() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { _, _ in
            StubResponse(
                status: .notFound,
                headers: origin.headers([("Cache-Control", "max-age=600"), ("X-Id", "7")]),
                body: "gone"
            )
        }
        let (connection, _) = try origin.connection()
        #expect(try await connection.get("x").value.cacheStatus == .miss)
        origin.clock.advance(42)
        let hit = try await connection.get("x").value
        #expect(hit.cacheStatus == .hit && hit.status == .notFound && hit.response?.text == "gone")
        #expect(hit.responseHeaders[.age] == "42" && hit.responseHeaders[HTTPField.Name("X-Id")!] == "7")
    }
}

@Suite(.timeLimit(.minutes(1))) struct HTTPCacheValidationTests {
    @Test func aStaleEntryWithAnETagIsRevalidatedAndA304ServesTheStoredBody() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, request in
            if call == 1 {
                return StubResponse(
                    headers: origin.headers([("Cache-Control", "max-age=10"), ("ETag", "\"v1\"")]),
                    body: "body"
                )
            }
            #expect(request.headers[.ifNoneMatch] == "\"v1\"")
            return StubResponse(
                status: .notModified,
                headers: origin.headers([("Cache-Control", "max-age=100"), ("X-New", "1")])
            )
        }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x").value
        origin.clock.advance(20)
        let revalidated = try await connection.get("x").value
        #expect(revalidated.cacheStatus == .revalidated && revalidated.status == .ok)
        #expect(revalidated.response?.text == "body" && revalidated.responseHeaders[HTTPField.Name("X-New")!] == "1")
        // The 304's max-age=100 was stored with it: fresh again.
        origin.clock.advance(50)
        #expect(try await connection.get("x").value.cacheStatus == .hit)
        #expect(origin.requests.count == 2)
    }

    @Test func lastModifiedIsSentAsIfModifiedSince() async throws {
        let origin = CachedOrigin()
        let modified = httpDate(origin.clock.now - 10)
        origin.route("/v1/x") { call, request in
            if call == 1 {
                return StubResponse(
                    headers: origin.headers([("Cache-Control", "no-cache"), ("Last-Modified", modified)]),
                    body: "b"
                )
            }
            #expect(request.headers[.ifModifiedSince] == modified && request.headers[.ifNoneMatch] == nil)
            return StubResponse(status: .notModified, headers: origin.headers([]))
        }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x").value
        let second = try await connection.get("x").value
        #expect(second.cacheStatus == .revalidated && second.response?.text == "b")
    }

    @Test func aNewAnswerToTheConditionalRequestReplacesTheEntry() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, _ in
            StubResponse(
                headers: origin.headers([("Cache-Control", "max-age=10"), ("ETag", "\"v\(call)\"")]),
                body: "v\(call)"
            )
        }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x").value
        origin.clock.advance(11)
        let second = try await connection.get("x").value
        #expect(second.cacheStatus == .miss && second.response?.text == "v2")
        #expect(try await connection.get("x").value.response?.text == "v2")
        #expect(origin.requests.count == 2)
    }

    @Test func theCallersOwnConditionalRequestPassesThrough() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { _, _ in StubResponse(status: .notModified, headers: origin.headers([("ETag", "\"a\"")]))
        }
        let (connection, _) = try origin.connection()
        let env = try await connection.get("x", headers: [.ifNoneMatch: "\"a\""]).value
        #expect(env.status == .notModified && env.cacheStatus == .uncacheable)
    }

    @Test func requestDirectivesDecideWhatAStoredResponseMayAnswer() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, _ in
            StubResponse(headers: origin.headers([("Cache-Control", "max-age=60")]), body: "v\(call)")
        }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x").value  // v1 at t = 0
        origin.clock.advance(30)
        func get(_ cacheControl: String, pragma: String? = nil) async throws -> Env {
            var headers: HTTPFields = [.cacheControl: cacheControl]
            if let pragma { headers = [HTTPField.Name("Pragma")!: pragma] }
            return try await connection.get("x", headers: headers).value
        }
        #expect(try await get("min-fresh=20").cacheStatus == .hit)  // 30 s of freshness left
        #expect(try await get("max-age=40").cacheStatus == .hit)
        #expect(try await get("min-fresh=40").response?.text == "v2")  // asks; v2 stored at t = 30
        #expect(try await get("max-age=0").response?.text == "v3")
        #expect(try await get("no-cache").response?.text == "v4")
        #expect(try await get("", pragma: "no-cache").response?.text == "v5")
        origin.clock.advance(90)  // v5 is 30 s stale
        #expect(try await get("max-stale=60").cacheStatus == .stale)
        #expect(try await get("max-stale").response?.text == "v5")
        #expect(try await get("max-stale=10").response?.text == "v6")
        #expect(origin.requests.count == 6)
    }

    @Test func mustRevalidateIsNeverServedStale() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, _ in
            StubResponse(
                headers: origin.headers([("Cache-Control", "max-age=1, must-revalidate, stale-if-error=600")]),
                body: "v\(call)"
            )
        }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x").value
        origin.clock.advance(5)
        #expect(try await connection.get("x", headers: [.cacheControl: "max-stale"]).value.response?.text == "v2")
    }

    @Test func onlyIfCachedAnswers504WhenNothingIsStored() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { _, _ in
            StubResponse(headers: origin.headers([("Cache-Control", "max-age=60")]), body: "b")
        }
        let (connection, _) = try origin.connection()
        #expect(
            try await connection.get("x", headers: [.cacheControl: "only-if-cached"]).value.status == .gatewayTimeout
        )
        _ = try await connection.get("x").value
        #expect(try await connection.get("x", headers: [.cacheControl: "only-if-cached"]).value.response?.text == "b")
        #expect(origin.requests.count == 1)
    }
}

@Suite(.timeLimit(.minutes(1))) struct HTTPCacheStaleTests {
    @Test func staleWhileRevalidateServesStaleAndRefreshesInTheBackground() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, _ in
            StubResponse(
                headers: origin.headers([("Cache-Control", "max-age=10, stale-while-revalidate=60")]),
                body: "v\(call)"
            )
        }
        let (connection, cache) = try origin.connection()
        _ = try await connection.get("x").value
        origin.clock.advance(30)
        let stale = try await connection.get("x").value
        #expect(stale.cacheStatus == .stale && stale.response?.text == "v1")
        await cache.waitForBackgroundRevalidations()
        #expect(origin.requests.count == 2)
        let fresh = try await connection.get("x").value
        #expect(fresh.cacheStatus == .hit && fresh.response?.text == "v2")
        origin.clock.advance(100)  // past the window: the caller waits for the server
        #expect(try await connection.get("x").value.response?.text == "v3")
    }

    @Test func staleIfErrorAnswersForAServerErrorOrAFailedConnection() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, _ in
            switch call {
            case 1:
                return StubResponse(
                    headers: origin.headers([("Cache-Control", "max-age=10, stale-if-error=60")]),
                    body: "v1"
                )
            case 2: return StubResponse(status: .serviceUnavailable, body: "down")
            default: throw FaradayError(.connectionFailed, "refused")
            }
        }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x").value
        origin.clock.advance(30)
        let afterError = try await connection.get("x").value
        #expect(afterError.cacheStatus == .stale && afterError.response?.text == "v1")
        let afterFailure = try await connection.get("x").value
        #expect(afterFailure.cacheStatus == .stale && afterFailure.response?.text == "v1")
        origin.clock.advance(100)
        await #expect(throws: FaradayError.self) { try await connection.get("x").value }
    }
}

@Suite(.timeLimit(.minutes(1))) struct HTTPCacheKeysTests {
    @Test func varyKeepsOneVariantPerAcceptValue() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, request in
            StubResponse(
                headers: origin.headers([("Cache-Control", "max-age=60"), ("Vary", "Accept")]),
                body: "\(request.headers[.accept] ?? "-") \(call)"
            )
        }
        let (connection, _) = try origin.connection()
        #expect(try await connection.get("x", headers: [.accept: "text/csv"]).value.response?.text == "text/csv 1")
        #expect(
            try await connection.get("x", headers: [.accept: "application/json"]).value.response?.text
                == "application/json 2"
        )
        #expect(try await connection.get("x", headers: [.accept: "text/csv"]).value.response?.text == "text/csv 1")
        #expect(
            try await connection.get("x", headers: [.accept: "application/json"]).value.response?.text
                == "application/json 2"
        )
        #expect(origin.requests.count == 2)
    }

    @Test func aSuccessfulUnsafeRequestInvalidatesItsURLAndSameOriginLocations() async throws {
        let origin = CachedOrigin()
        for path in ["/v1/items", "/v1/items/1", "/v1/other"] {
            origin.route(path) { call, _ in
                StubResponse(headers: origin.headers([("Cache-Control", "max-age=600")]), body: "\(path) \(call)")
            }
        }
        origin.route("/v1/items", method: .post) { _, _ in
            StubResponse(
                status: .created,
                headers: origin.headers([
                    ("Location", "/v1/items/1"), ("Content-Location", "https://elsewhere.example/v1/other"),
                ])
            )
        }
        let (connection, _) = try origin.connection()
        for path in ["items", "items/1", "other"] { _ = try await connection.get(path).value }
        let post = try await connection.post("items").value
        #expect(post.cacheStatus == .uncacheable)
        #expect(try await connection.get("items").value.response?.text == "/v1/items 2")
        #expect(try await connection.get("items/1").value.response?.text == "/v1/items/1 2")
        #expect(try await connection.get("other").value.response?.text == "/v1/other 1")  // another origin's name
    }

    @Test func aFailedUnsafeRequestInvalidatesNothing() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/items") { call, _ in
            StubResponse(headers: origin.headers([("Cache-Control", "max-age=600")]), body: "\(call)")
        }
        origin.route("/v1/items", method: .delete) { _, _ in StubResponse(status: .forbidden) }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("items").value
        _ = try await connection.delete("items").value
        #expect(try await connection.get("items").value.cacheStatus == .hit)
    }

    @Test func responsesToCredentialedRequestsAreStoredOnlyWhenPublic() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/private") { call, _ in
            StubResponse(headers: origin.headers([("Cache-Control", "max-age=600")]), body: "\(call)")
        }
        origin.route("/v1/public") { call, _ in
            StubResponse(headers: origin.headers([("Cache-Control", "public, max-age=600")]), body: "\(call)")
        }
        let (connection, _) = try origin.connection(below: [Authorization.Handler(.bearer("t0ken"))])
        _ = try await connection.get("private").value
        #expect(try await connection.get("private").value.cacheStatus == .uncacheable)
        _ = try await connection.get("public").value
        #expect(try await connection.get("public").value.cacheStatus == .hit)
    }

    @Test func resetEmptiesTheStore() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, _ in
            StubResponse(headers: origin.headers([("Cache-Control", "max-age=600")]), body: "\(call)")
        }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x").value
        connection.reset()
        #expect(try await connection.get("x").value.cacheStatus == .miss)
    }
}

@Suite(.timeLimit(.minutes(1))) struct HTTPCacheBodyTests {
    @Test func aStreamedResponseIsStoredWhenItEndsAndServedAsFrames() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/lines") { _, _ in
            StubResponse(
                headers: origin.headers([("Cache-Control", "max-age=60")]),
                body: ResponseBody(pieces: [Data("a\nb".utf8), Data("\nc\n".utf8)])
            )
        }
        let (connection, _) = try origin.connection()
        var first: [String] = []
        for try await env in connection.get("lines", streaming: .lines).completions where !env.isFinal {
            first.append(env.response?.text ?? "")
            #expect(env.cacheStatus == .miss)
        }
        var second: [String] = []
        for try await env in connection.get("lines", streaming: .lines).completions where !env.isFinal {
            second.append(env.response?.text ?? "")
            #expect(env.cacheStatus == .hit)
        }
        #expect(first == ["a", "b", "c"] && second == first)
        #expect(try await connection.get("lines").value.response?.text == "a\nb\nc\n")
        #expect(origin.requests.count == 1)
    }

    @Test func aBodyThatFailsHalfwayIsNotStored() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, _ in
            call == 1
                ? StubResponse(
                    headers: origin.headers([("Cache-Control", "max-age=60")]),
                    body: ResponseBody(pieces: [Data("half".utf8)]),
                    ending: .fail(FaradayError(.connectionFailed, "reset"))
                )
                : StubResponse(headers: origin.headers([("Cache-Control", "max-age=60")]), body: "whole")
        }
        let (connection, _) = try origin.connection()
        await #expect(throws: FaradayError.self) { try await connection.get("x", streaming: .chunks).value }
        #expect(try await connection.get("x").value.response?.text == "whole")
        #expect(try await connection.get("x").value.cacheStatus == .hit)
    }

    @Test func aBodyOverTheLimitPassesThroughUnstored() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { _, _ in
            StubResponse(headers: origin.headers([("Cache-Control", "max-age=60")]), body: Data(count: 2_000))
        }
        let (connection, _) = try origin.connection { $0.maximumBodySize = 1_000 }
        #expect(try await connection.get("x").value.body.count == 2_000)
        #expect(try await connection.get("x").value.cacheStatus == .miss)
        #expect(origin.requests.count == 2)
    }
}

/// The rows of the order table in *The middleware stack* for the cache, both orders each.
@Suite(.timeLimit(.minutes(1))) struct HTTPCacheOrderTests {
    @Test(arguments: [true, false])
    func followRedirectsAboveTheCacheStoresEachHop(_ redirectsAbove: Bool) async throws {
        let origin = CachedOrigin()
        origin.route("/v1/a") { _, _ in
            StubResponse(
                status: .movedPermanently,
                headers: origin.headers([("Location", "/v1/b"), ("Cache-Control", "max-age=600")])
            )
        }
        origin.route("/v1/b") { call, _ in
            StubResponse(headers: origin.headers([("Cache-Control", "max-age=600")]), body: "b\(call)")
        }
        let redirects = FollowRedirects.Handler()
        let (connection, _) = try origin.connection(
            above: redirectsAbove ? [redirects] : [],
            below: redirectsAbove ? [] : [redirects]
        )
        #expect(try await connection.get("a").value.response?.text == "b1")
        let second = try await connection.get("a").value
        #expect(second.response?.text == (redirectsAbove ? "b1" : "b2"))
        // Above: the 301 itself is asked again (FollowRedirects drops its body, so it never ends
        // whole to be stored), its target is a hit.
        #expect(origin.requests.count == (redirectsAbove ? 3 : 4))
    }

    @Test(arguments: [true, false])
    func theCacheAboveRetryAnswersStaleOnlyAfterTheAttemptsRanOut(_ cacheAbove: Bool) async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, _ in
            call == 1
                ? StubResponse(
                    headers: origin.headers([("Cache-Control", "max-age=1, stale-if-error=600")]),
                    body: "v1"
                )
                : StubResponse(status: .serviceUnavailable)
        }
        let retry = Retry.Handler(backoff: .none, statuses: [503], sleep: { _ in })
        let (connection, _) = try origin.connection(above: cacheAbove ? [] : [retry], below: cacheAbove ? [retry] : [])
        _ = try await connection.get("x").value
        origin.clock.advance(5)
        let env = try await connection.get("x").value
        #expect(env.cacheStatus == .stale && env.response?.text == "v1")
        #expect(origin.requests.count == (cacheAbove ? 4 : 2))  // three attempts, or one answered stale
    }
}

@Suite(.timeLimit(.minutes(1))) struct HTTPCacheObservedTests {
    final class CacheEvents: EventMonitor {
        let statuses = Locked<[CacheStatus]>([])
        func cacheAnswered(_ call: CallInfo, status: CacheStatus) { statuses.withLock { $0.append(status) } }
    }

    @Test func instrumentationAndTheLoggerAboveTheCacheSayWhatItDid() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, _ in
            StubResponse(
                headers: origin.headers([("Cache-Control", "max-age=10"), ("ETag", "\"a\"")]),
                body: "\(call)"
            )
        }
        origin.route("/v1/post", method: .post) { _, _ in StubResponse(status: .created) }
        let events = CacheEvents()
        let logs = InMemoryLogHandler()
        let (connection, _) = try origin.connection(
            above: [
                Instrumentation.Handler(monitors: [events]),
                HTTPLogger.Handler(logger: Logger(label: "test") { _ in logs }),
            ],
            below: [Retry.Handler(backoff: .none, sleep: { _ in })]
        )
        _ = try await connection.get("x").value
        _ = try await connection.get("x").value
        origin.route("/v1/x") { _, _ in StubResponse(status: .notModified, headers: origin.headers([])) }
        origin.clock.advance(11)
        _ = try await connection.get("x").value
        _ = try await connection.post("post").value
        #expect(events.statuses.withLock { $0 } == [.miss, .hit, .revalidated, .uncacheable])
        let lines = logs.entries.map(\.message.description).filter { $0.hasPrefix("←") }
        #expect(lines.count == 4)
        #expect(zip(lines, ["miss", "hit", "revalidated", "uncacheable"]).allSatisfy { $0.contains("cache \($1)") })
        // What went to the network says which attempt answered; a hit made none.
        let attempts = logs.entries.filter { "\($0.message)".hasPrefix("←") }.map { $0.metadata["faraday.attempt"] }
        #expect(attempts == ["1", nil, "1", "1"])
    }
}

/// The cases a review of the first version found (RFC 9111 §§3.2, 3.5, 4.1, 4.3.3, 4.3.4, 4.4;
/// RFC 5861), each a request/response exchange that went wrong or could.
@Suite(.timeLimit(.minutes(1))) struct HTTPCacheEdgeTests {
    private func fields(_ origin: CachedOrigin, _ cacheControl: String, _ more: [(String, String)] = []) -> HTTPFields {
        origin.headers([("Cache-Control", cacheControl)] + more)
    }

    @Test func aHugeOrInvalidAgeNeitherCrashesNorMakesAnEntryFresh() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, _ in
            call == 1
                ? StubResponse(headers: fields(origin, "max-age=60", [("ETag", "\"a\"")]), body: "b")
                : StubResponse(status: .notModified, headers: fields(origin, "max-age=60", [("Age", "1e19")]))
        }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x").value
        origin.clock.advance(61)
        #expect(try await connection.get("x").value.cacheStatus == .revalidated)
        let hit = try await connection.get("x", headers: [.cacheControl: "max-stale"]).value  // Age ignored: fresh
        #expect(hit.cacheStatus == .hit && Int(hit.responseHeaders[.age] ?? "") != nil)
        for age in ["99999999999999999999", "-5", "inf"] {
            var entry = CacheStoreTests.entry("/y")
            entry.headers[.age] = age
            #expect(CachePolicy.age(of: entry, now: entry.responseDate) <= Double(Int32.max) + 1)
        }
    }

    @Test func a304WithoutAgeOrDateMakesTheEntryFreshFromNow() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, _ in
            if call == 1 {
                return StubResponse(
                    headers: fields(origin, "max-age=60", [("Age", "50"), ("ETag", "\"a\"")]),
                    body: "b"
                )
            }
            return StubResponse(status: .notModified, headers: [.eTag: "\"a\""])  // no Date, no Age
        }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x").value
        origin.clock.advance(11)
        #expect(try await connection.get("x").value.cacheStatus == .revalidated)
        origin.clock.advance(40)
        #expect(try await connection.get("x").value.cacheStatus == .hit)
    }

    @Test func a304NamingAnotherRepresentationUpdatesNothingAndTheRequestIsSentAgain() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, request in
            switch call {
            case 1: return StubResponse(headers: fields(origin, "max-age=10", [("ETag", "\"a\"")]), body: "a")
            case 2:
                return StubResponse(status: .notModified, headers: fields(origin, "max-age=10", [("ETag", "\"b\"")]))
            default:
                #expect(request.headers[.ifNoneMatch] == nil)
                return StubResponse(headers: fields(origin, "max-age=10", [("ETag", "\"b\"")]), body: "b")
            }
        }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x").value
        origin.clock.advance(11)
        let env = try await connection.get("x").value
        #expect(env.response?.text == "b" && env.cacheStatus == .miss && origin.requests.count == 3)
    }

    @Test func aRedirectsLastHopIsNotStoredUnderTheFirstURL() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/a") { _, _ in StubResponse(status: .found, headers: origin.headers([("Location", "/v1/b")])) }
        origin.route("/v1/b") { call, _ in StubResponse(headers: fields(origin, "max-age=600"), body: "b\(call)") }
        let (connection, _) = try origin.connection(below: [FollowRedirects.Handler()])
        #expect(try await connection.get("a").value.response?.text == "b1")
        #expect(try await connection.get("a").value.response?.text == "b2")
    }

    @Test func aCallerWhoCancelsIsNotAnsweredStale() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, _ in
            if call == 1 { return StubResponse(headers: fields(origin, "max-age=1, stale-if-error=600"), body: "b") }
            throw FaradayError(.cancelled, "the caller left")
        }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x").value
        origin.clock.advance(5)
        await #expect { try await connection.get("x").value } throws: { ($0 as? FaradayError)?.code == .cancelled }
    }

    @Test func staleIfErrorOnTheRequestAloneAllowsAStaleAnswer() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, _ in
            call == 1
                ? StubResponse(headers: fields(origin, "max-age=10"), body: "b")
                : StubResponse(status: .serviceUnavailable, body: "down")
        }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x").value
        origin.clock.advance(30)
        #expect(try await connection.get("x").value.status == .serviceUnavailable)
        let env = try await connection.get("x", headers: [.cacheControl: "stale-if-error=60"]).value
        #expect(env.cacheStatus == .stale && env.response?.text == "b")
    }

    @Test func varyNamingAHeaderTheFirstRequestLackedStillSeparatesVariants() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, request in
            StubResponse(
                headers: fields(origin, "max-age=60", [("Vary", "Accept")]),
                body: "\(request.headers[.accept] ?? "-") \(call)"
            )
        }
        let (connection, _) = try origin.connection()
        #expect(try await connection.get("x").value.response?.text == "- 1")
        #expect(try await connection.get("x", headers: [.accept: "text/csv"]).value.response?.text == "text/csv 2")
        #expect(try await connection.get("x").value.response?.text == "- 1")
    }

    @Test func varyOnAHeaderAddedBelowTheCacheIsNotStored() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, _ in
            StubResponse(headers: fields(origin, "max-age=60", [("Vary", "Accept")]), body: "\(call)")
        }
        // A layer below the cache that adds the header the response varies on.
        let addsAccept = OnRequest.Handler { $0.request.headers[.accept] = "application/json" }
        let (connection, _) = try origin.connection(below: [addsAccept])
        _ = try await connection.get("x").value
        #expect(try await connection.get("x").value.response?.text == "2")
    }

    @Test(arguments: ["Acc(ept", "*", "accept, *"])
    func anUnusableVaryIsServedToNobody(_ vary: String) async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, _ in
            StubResponse(headers: fields(origin, "max-age=60", [("Vary", vary)]), body: "\(call)")
        }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x").value
        #expect(try await connection.get("x").value.response?.text == "2")
    }

    @Test func requestNoStoreKeepsTheResponseOut() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, _ in StubResponse(headers: fields(origin, "max-age=60"), body: "\(call)") }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x", headers: [.cacheControl: "no-store"]).value
        #expect(try await connection.get("x").value.response?.text == "2")
    }

    @Test(arguments: [
        ("must-revalidate, max-age=60", true), ("s-maxage=60, max-age=60", true), ("public, max-age=60", true),
        ("proxy-revalidate, max-age=60", false), ("private, max-age=60", false), ("max-age=60", false),
    ])
    func aCredentialedResponseIsStoredOnlyWhenItSaysSo(_ cacheControl: String, _ stored: Bool) async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, _ in StubResponse(headers: fields(origin, cacheControl), body: "\(call)") }
        let (connection, _) = try origin.connection(above: [Authorization.Handler(.bearer("t0ken"))])
        _ = try await connection.get("x").value
        #expect(try await connection.get("x").value.response?.text == (stored ? "1" : "2"))
    }

    @Test(arguments: [
        (HTTPRequest.Method.put, HTTPResponse.Status.noContent, true), (.delete, .notFound, false),
        (.head, .ok, false), (.patch, .ok, true), (.post, .seeOther, true),
    ])
    func unsafeMethodsInvalidateOnSuccessOnly(
        _ method: HTTPRequest.Method,
        _ status: HTTPResponse.Status,
        _ invalidates: Bool
    ) async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, _ in StubResponse(headers: fields(origin, "max-age=600"), body: "\(call)") }
        origin.route("/v1/x", method: method) { _, _ in StubResponse(status: status) }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x").value
        _ = try await connection.run(method: method, "x").value
        #expect(try await connection.get("x").value.response?.text == (invalidates ? "2" : "1"))
    }

    @Test func onlyIfCachedWithinStaleWhileRevalidateAsksNobody() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, _ in
            StubResponse(headers: fields(origin, "max-age=10, stale-while-revalidate=60"), body: "\(call)")
        }
        let (connection, cache) = try origin.connection()
        _ = try await connection.get("x").value
        origin.clock.advance(20)
        let env = try await connection.get("x", headers: [.cacheControl: "only-if-cached"]).value
        await cache.waitForBackgroundRevalidations()
        #expect(env.cacheStatus == .stale && origin.requests.count == 1)
    }

    @Test func concurrentStaleHitsStartOneBackgroundRevalidation() async throws {
        let origin = CachedOrigin()
        let gate = AsyncGate()
        origin.route("/v1/x") { call, _ in
            StubResponse(headers: fields(origin, "max-age=10, stale-while-revalidate=60"), body: "\(call)")
        }
        let (connection, cache) = try origin.connection(below: [OnRequest.Handler { _ in await gate.wait() }])
        gate.open()
        _ = try await connection.get("x").value
        gate.close()
        origin.clock.advance(20)
        for _ in 0..<5 { #expect(try await connection.get("x").value.cacheStatus == .stale) }
        gate.open()
        await cache.waitForBackgroundRevalidations()
        #expect(origin.requests.count == 2)
    }

    @Test func aResetDuringABackgroundRevalidationKeepsTheStoreEmpty() async throws {
        let origin = CachedOrigin()
        let gate = AsyncGate()
        origin.route("/v1/x") { call, _ in
            StubResponse(headers: fields(origin, "max-age=10, stale-while-revalidate=60"), body: "\(call)")
        }
        let store = MemoryCacheStore()
        let (connection, cache) = try origin.connection(store, below: [OnRequest.Handler { _ in await gate.wait() }])
        gate.open()
        _ = try await connection.get("x").value
        gate.close()
        origin.clock.advance(20)
        _ = try await connection.get("x").value  // stale; the revalidation waits at the gate
        connection.reset()
        gate.open()
        await cache.waitForBackgroundRevalidations()
        #expect(store.entries(for: CacheEntry.key(for: URL(string: "https://api.example.com/v1/x")!)).isEmpty)
    }
}

/// A gate tasks wait at while it is closed.
final class AsyncGate: Sendable {
    private let state = Locked<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func close() { state.withLock { $0.isOpen = false } }

    func wait() async {
        await withCheckedContinuation { continuation in
            let isOpen = state.withLock { state in
                if !state.isOpen { state.waiters.append(continuation) }
                return state.isOpen
            }
            if isOpen { continuation.resume() }
        }
    }
}
