import Foundation
import HTTPTypes
import Testing

@testable import Faraday

/// The caller's own conditional request, answered by a fresh stored response (RFC 9111 §4.3.2):
/// a 304 when the condition says not modified, the stored response when it says modified, and
/// the server when nothing fresh is stored.
@Suite(.timeLimit(.minutes(1))) struct HTTPCacheConditionTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        /// The stored response's validators: `ETag`, and `Last-Modified` in seconds from now.
        let etag: String?
        let lastModified: Int?
        /// The caller's condition: `If-None-Match`, and `If-Modified-Since` in seconds from now.
        let ifNoneMatch: String?
        let ifModifiedSince: Int?
        let isNotModified: Bool
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(
            name: "strong tag",
            etag: "\"a\"",
            lastModified: nil,
            ifNoneMatch: "\"a\"",
            ifModifiedSince: nil,
            isNotModified: true
        ),
        Row(
            name: "weak tag",
            etag: "W/\"a\"",
            lastModified: nil,
            ifNoneMatch: "W/\"a\"",
            ifModifiedSince: nil,
            isNotModified: true
        ),
        Row(
            name: "weak against strong",
            etag: "\"a\"",
            lastModified: nil,
            ifNoneMatch: "W/\"a\"",
            ifModifiedSince: nil,
            isNotModified: true
        ),
        Row(
            name: "one of a list",
            etag: "\"a\"",
            lastModified: nil,
            ifNoneMatch: "\"x\", \"a\"",
            ifModifiedSince: nil,
            isNotModified: true
        ),
        Row(
            name: "star",
            etag: "\"a\"",
            lastModified: nil,
            ifNoneMatch: "*",
            ifModifiedSince: nil,
            isNotModified: true
        ),
        Row(
            name: "unquoted against quoted",
            etag: "\"a\"",
            lastModified: nil,
            ifNoneMatch: "a",
            ifModifiedSince: nil,
            isNotModified: true
        ),
        Row(
            name: "a tag with a comma",
            etag: "\"a,b\"",
            lastModified: nil,
            ifNoneMatch: "\"x\", \"a,b\"",
            ifModifiedSince: nil,
            isNotModified: true
        ),
        Row(
            name: "another tag",
            etag: "\"a\"",
            lastModified: nil,
            ifNoneMatch: "\"x\"",
            ifModifiedSince: nil,
            isNotModified: false
        ),
        Row(
            name: "a tag and no stored tag",
            etag: nil,
            lastModified: -10,
            ifNoneMatch: "\"a\"",
            ifModifiedSince: nil,
            isNotModified: false
        ),
        Row(
            name: "If-None-Match before If-Modified-Since",
            etag: "\"a\"",
            lastModified: -10,
            ifNoneMatch: "\"a\"",
            ifModifiedSince: -20,
            isNotModified: true
        ),
        Row(
            name: "not modified since",
            etag: nil,
            lastModified: -3000,
            ifNoneMatch: nil,
            ifModifiedSince: -3000,
            isNotModified: true
        ),
        Row(
            name: "not modified since, later",
            etag: nil,
            lastModified: -3000,
            ifNoneMatch: nil,
            ifModifiedSince: -2000,
            isNotModified: true
        ),
        Row(
            name: "modified since",
            etag: nil,
            lastModified: -3000,
            ifNoneMatch: nil,
            ifModifiedSince: -4000,
            isNotModified: false
        ),
        Row(
            name: "no Last-Modified: the Date counts",
            etag: nil,
            lastModified: nil,
            ifNoneMatch: nil,
            ifModifiedSince: 100,
            isNotModified: true
        ),
    ]

    @Test(arguments: rows)
    func aFreshStoredResponseAnswersTheCallersCondition(_ row: Row) async throws {
        let origin = CachedOrigin()
        let start = origin.clock.now
        origin.route("/v1/x") { _, _ in
            var fields = [("Cache-Control", "max-age=3600")]
            if let etag = row.etag { fields.append(("ETag", etag)) }
            if let lastModified = row.lastModified {
                fields.append(("Last-Modified", httpDate(start.addingTimeInterval(Double(lastModified)))))
            }
            return StubResponse(headers: origin.headers(fields), body: "stored")
        }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x").value
        var condition = HTTPFields()
        if let tag = row.ifNoneMatch { condition[.ifNoneMatch] = tag }
        if let since = row.ifModifiedSince {
            condition[.ifModifiedSince] = httpDate(start.addingTimeInterval(Double(since)))
        }
        let answer = try await connection.get("x", headers: condition).value
        #expect(origin.requests.count == 1)  // the server was not asked
        #expect(answer.cacheStatus == .hit)
        if row.isNotModified {
            #expect(answer.status == .notModified && answer.body.isEmpty)
            #expect(
                answer.responseHeaders[.eTag] == row.etag && answer.responseHeaders[.cacheControl] == "max-age=3600"
            )
        } else {
            #expect(answer.status == .ok && answer.response?.text == "stored")
        }
    }

    /// The conditions come before the range (RFC 9110 §13.2.2): a matching tag with a range is a
    /// 304; and a stored response that is no 2xx ignores both (§13.2.1): it is served whole.
    @Test func conditionsComeBeforeTheRangeAndOnlyFor2xx() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { _, _ in
            StubResponse(headers: origin.headers([("Cache-Control", "max-age=60"), ("ETag", "\"a\"")]), body: "0123")
        }
        origin.route("/v1/gone") { _, _ in
            StubResponse(status: .notFound, headers: origin.headers([("Cache-Control", "max-age=60")]), body: "none")
        }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x").value
        _ = try await connection.get("gone").value
        let both = try await connection.get("x", headers: [.ifNoneMatch: "\"a\"", .range: "bytes=0-1"]).value
        #expect(both.status == .notModified)
        let missing = try await connection.get("gone", headers: [.ifNoneMatch: "*", .range: "bytes=0-1"]).value
        #expect(missing.status == .notFound && missing.response?.text == "none" && missing.cacheStatus == .hit)
        #expect(origin.requests.count == 2)
    }

    /// A stale stored response answers no condition: the caller's request goes to the server as
    /// written, and its answer is the caller's.
    @Test func aStaleStoredResponseLeavesTheConditionToTheServer() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, request in
            call == 1
                ? StubResponse(
                    headers: origin.headers([("Cache-Control", "max-age=10"), ("ETag", "\"a\"")]),
                    body: "b"
                )
                : StubResponse(
                    status: .notModified,
                    headers: origin.headers([("ETag", request.headers[.ifNoneMatch] ?? "")])
                )
        }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x").value
        origin.clock.advance(11)
        let answer = try await connection.get("x", headers: [.ifNoneMatch: "\"mine\""]).value
        #expect(origin.requests.count == 2 && origin.requests.last?.headers[.ifNoneMatch] == "\"mine\"")
        #expect(answer.status == .notModified && answer.cacheStatus == .uncacheable)
    }
}

/// A range request answered by a fresh complete stored response: one byte range as a 206 with
/// its `Content-Range`; several ranges, another unit, a range past the end, `If-Range` or a
/// stale entry go to the server as written.
@Suite(.timeLimit(.minutes(1))) struct HTTPCacheRangeTests {
    /// A `Range` field, and the part and `Content-Range` a body of `01234567890` answers.
    static let rows: [(range: String, part: String?, contentRange: String?)] = [
        ("bytes=0-1", "01", "bytes 0-1/11"), ("bytes=1-", "1234567890", "bytes 1-10/11"),
        ("bytes=-1", "0", "bytes 10-10/11"), ("bytes=-20", "01234567890", "bytes 0-10/11"),
        ("bytes=3-100", "34567890", "bytes 3-10/11"), ("bytes=20-", nil, nil), ("bytes=0-1,3-4", nil, nil),
        ("items=0-1", nil, nil), ("bytes=5-2", nil, nil), ("bytes=-0", nil, nil),
        ("bytes = 2-3", nil, nil),  // no space around `=` in the grammar
        ("bytes=99999999999999999999-", nil, nil), ("bytes=-99999999999999999999", nil, nil),
    ]

    @Test(arguments: rows)
    func aStoredResponseAnswersOneByteRange(_ row: (range: String, part: String?, contentRange: String?)) async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, _ in
            call == 1
                ? StubResponse(headers: origin.headers([("Cache-Control", "max-age=3600")]), body: "01234567890")
                : StubResponse(status: .partialContent, headers: origin.headers([]), body: "from the server")
        }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x").value
        let answer = try await connection.get("x", headers: [.range: row.range]).value
        if let part = row.part {
            #expect(answer.status == .partialContent && answer.response?.text == part && answer.cacheStatus == .hit)
            #expect(answer.responseHeaders[.contentRange] == row.contentRange)
            #expect(answer.responseHeaders[.contentLength] == String(part.count))
            #expect(origin.requests.count == 1)
        } else {
            #expect(answer.response?.text == "from the server" && origin.requests.count == 2)
        }
    }

    @Test(arguments: [true, false])
    func ifRangeOrAStaleEntryGoesToTheServer(_ withIfRange: Bool) async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, _ in
            call == 1
                ? StubResponse(
                    headers: origin.headers([("Cache-Control", "max-age=10"), ("ETag", "\"a\"")]),
                    body: "0123"
                )
                : StubResponse(status: .partialContent, headers: origin.headers([]), body: "server")
        }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x").value
        if !withIfRange { origin.clock.advance(11) }
        var headers: HTTPFields = [.range: "bytes=0-1"]
        if withIfRange { headers[.ifRange] = "\"a\"" }
        let answer = try await connection.get("x", headers: headers).value
        #expect(answer.response?.text == "server" && origin.requests.count == 2)
    }
}
