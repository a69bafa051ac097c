import Foundation
import HTTPTypes
import Testing

@testable import Faraday

/// `HEAD` and `POST` through the cache (RFC 9111 §4.3.5, RFC 9110 §9.3.3), and the directives
/// that decide between storing and reusing: `must-understand`, a qualified `no-cache`,
/// `immutable`, a request's `no-store`.
@Suite(.timeLimit(.minutes(1))) struct HTTPCacheMethodTests {
    private func fields(_ origin: CachedOrigin, _ more: [(String, String)]) -> HTTPFields { origin.headers(more) }

    @Test func aFreshStoredGetAnswersAHeadWithItsFieldsAndNoBody() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { _, _ in
            StubResponse(headers: fields(origin, [("Cache-Control", "max-age=60"), ("X-Id", "7")]), body: "whole")
        }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x").value
        let head = try await connection.head("x").value
        #expect(head.cacheStatus == .hit && head.status == .ok)
        #expect(head.responseHeaders[HTTPField.Name("X-Id")!] == "7" && head.response?.body.isEmpty == true)
        #expect(origin.requests.count == 1)
    }

    /// One row: the fields of the server's 200 to a `HEAD` sent for a stale stored `GET` response
    /// (`ETag: "a"`, 5-byte body), and whether they update it (else it is no longer served).
    @Test(arguments: [
        ([("Cache-Control", "max-age=600"), ("X-Id", "2")], true),
        ([("Cache-Control", "max-age=600"), ("X-Id", "2"), ("ETag", "\"a\""), ("Content-Length", "5")], true),
        ([("Cache-Control", "max-age=600"), ("ETag", "\"b\"")], false),  // another representation
        ([("Cache-Control", "max-age=600"), ("Content-Length", "9")], false),  // another body
        ([("Cache-Control", "no-store")], false),
    ])
    func aHeadsAnswerUpdatesTheStoredGetItDescribes(_ headFields: [(String, String)], _ updates: Bool) async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, _ in
            StubResponse(
                headers: fields(origin, [("Cache-Control", "max-age=10"), ("ETag", "\"a\""), ("X-Id", "1")]),
                body: "get \(call)"
            )
        }
        origin.route("/v1/x", method: .head) { _, _ in StubResponse(headers: fields(origin, headFields)) }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x").value
        origin.clock.advance(20)
        let head = try await connection.head("x").value
        #expect(origin.requests.map(\.method) == [.get, .head])
        #expect(head.status == .ok && head.response?.body.isEmpty == true)
        let get = try await connection.get("x").value
        if updates {
            #expect(head.cacheStatus == .revalidated && head.responseHeaders[.eTag] == "\"a\"")
            #expect(get.cacheStatus == .hit && get.response?.text == "get 1")
            #expect(get.responseHeaders[HTTPField.Name("X-Id")!] == "2")
        } else {
            #expect(head.cacheStatus == .uncacheable)
            #expect(get.cacheStatus == .miss && get.response?.text == "get 2")
        }
    }

    @Test func aHeadAnsweredOtherwiseThan200LeavesTheStoredGetAlone() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, _ in
            StubResponse(
                headers: fields(origin, [("Cache-Control", "max-age=10"), ("ETag", "\"a\"")]),
                body: "\(call)"
            )
        }
        origin.route("/v1/x", method: .head) { _, _ in
            StubResponse(status: .gone, headers: fields(origin, [("Cache-Control", "max-age=600")]))
        }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x").value
        origin.clock.advance(20)
        #expect(try await connection.head("x").value.status == .gone)
        origin.route("/v1/x") { _, _ in StubResponse(status: .notModified, headers: fields(origin, [])) }
        let get = try await connection.get("x").value
        #expect(get.cacheStatus == .revalidated && get.response?.text == "1")
    }

    /// One row: a `POST`'s response fields (`URL` is the request's own URL), and whether a later
    /// `GET` of that URL is answered with it.
    @Test(arguments: [
        ([("Cache-Control", "max-age=60"), ("Content-Location", "URL")], true),
        ([("Cache-Control", "max-age=60"), ("Content-Location", "x")], true),  // relative to the request
        ([("Expires", "IN 60"), ("Content-Location", "URL")], true),
        ([("Cache-Control", "max-age=60")], false),  // no Content-Location
        ([("Cache-Control", "max-age=60"), ("Content-Location", "other")], false),
        ([("Content-Location", "URL")], false),  // no explicit freshness
        ([("Cache-Control", "max-age=60, no-store"), ("Content-Location", "URL")], false),
    ])
    func aPostsResponseWithItsOwnURLAsContentLocationAnswersLaterGets(
        _ responseFields: [(String, String)],
        _ stored: Bool
    ) async throws {
        let origin = CachedOrigin()
        let url = "https://api.example.com/v1/x"
        origin.route("/v1/x", method: .post) { _, _ in
            let expires = httpDate(origin.clock.now + 60)
            let fields = responseFields.map { ($0.0, $0.1 == "URL" ? url : $0.1 == "IN 60" ? expires : $0.1) }
            return StubResponse(headers: origin.headers(fields), body: "posted")
        }
        origin.route("/v1/x") { _, _ in StubResponse(headers: fields(origin, []), body: "got") }
        let (connection, _) = try origin.connection()
        let post = try await connection.post("x", body: .text("12345")).value
        #expect(post.cacheStatus == (stored ? .miss : .uncacheable))
        let get = try await connection.get("x").value
        #expect(get.response?.text == (stored ? "posted" : "got"))
        #expect(origin.requests.count == (stored ? 1 : 2))
    }

    /// One row: the response's status and `Cache-Control`, and whether it is stored.
    @Test(arguments: [
        (200, "max-age=60, no-store, must-understand", true),
        (404, "max-age=60, no-store, must-understand", true),
        (299, "max-age=60, no-store, must-understand", false),  // a status this cache does not know
        (299, "max-age=60, must-understand", false),
        (299, "max-age=60", true),
        (200, "max-age=60, no-store", false),
    ])
    func mustUnderstandStoresWhatTheCacheKnowsDespiteNoStore(
        _ status: Int,
        _ cacheControl: String,
        _ stored: Bool
    ) async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, _ in
            StubResponse(
                status: .init(code: status),
                headers: fields(origin, [("Cache-Control", cacheControl)]),
                body: "\(call)"
            )
        }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x").value
        #expect(try await connection.get("x").value.response?.text == (stored ? "1" : "2"))
    }

    @Test func aQualifiedNoCacheKeepsTheResponseButNotTheFieldsItNames() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, _ in
            StubResponse(
                headers: fields(
                    origin,
                    [
                        ("Cache-Control", "no-cache=\"Set-Cookie, X-A\", max-age=60"), ("Set-Cookie", "s=1"),
                        ("X-A", "1"), ("X-B", "2"),
                    ]
                ),
                body: "\(call)"
            )
        }
        let (connection, _) = try origin.connection()
        let miss = try await connection.get("x").value
        #expect(miss.responseHeaders[.setCookie] == "s=1")  // the server's answer is the caller's whole
        let hit = try await connection.get("x").value
        #expect(hit.cacheStatus == .hit && hit.response?.text == "1")
        #expect(hit.responseHeaders[.setCookie] == nil && hit.responseHeaders[HTTPField.Name("X-A")!] == nil)
        #expect(hit.responseHeaders[HTTPField.Name("X-B")!] == "2")
    }

    @Test func anImmutableResponseIsNotValidatedOnAReloadButIsOnAForcedOne() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, _ in
            StubResponse(headers: fields(origin, [("Cache-Control", "max-age=600, immutable")]), body: "\(call)")
        }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x").value
        origin.clock.advance(30)
        let reload = try await connection.get("x", headers: [.cacheControl: "max-age=0"]).value
        #expect(reload.cacheStatus == .hit && reload.response?.text == "1")
        let forced = try await connection.get("x", headers: [.cacheControl: "no-cache"]).value
        #expect(forced.response?.text == "2")
        origin.clock.advance(600)  // stale now: a reload asks
        #expect(try await connection.get("x", headers: [.cacheControl: "max-age=0"]).value.response?.text == "3")
    }

    @Test func aRequestWithNoStoreIsNeitherAnsweredFromTheStoreNorStored() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, _ in
            StubResponse(headers: fields(origin, [("Cache-Control", "max-age=60")]), body: "\(call)")
        }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x").value
        let noStore = try await connection.get("x", headers: [.cacheControl: "no-store"]).value
        #expect(noStore.cacheStatus == .uncacheable && noStore.response?.text == "2")
        #expect(try await connection.get("x").value.response?.text == "1")  // the stored one is untouched
    }

    @Test func anUnsafeRequestWithNoStoreStillMakesTheStoredResponseOutOfDate() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, _ in
            StubResponse(headers: fields(origin, [("Cache-Control", "max-age=60")]), body: "\(call)")
        }
        origin.route("/v1/x", method: .put) { _, _ in StubResponse(status: .noContent) }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x").value
        _ = try await connection.put("x", headers: [.cacheControl: "no-store"], body: .text("new")).value
        #expect(try await connection.get("x").value.response?.text == "2")
    }

    @Test func aHeadWithOnlyIfCachedAndNothingFreshGets504() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x", method: .head) { _, _ in StubResponse(headers: fields(origin, [])) }
        let (connection, _) = try origin.connection()
        let head = try await connection.head("x", headers: [.cacheControl: "only-if-cached"]).value
        #expect(head.status == .gatewayTimeout && origin.requests.isEmpty)
    }
}
