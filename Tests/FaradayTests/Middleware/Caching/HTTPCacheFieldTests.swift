import Foundation
import HTTPTypes
import Testing

@testable import Faraday

/// What a stored response keeps of its fields, and how its `Age` is read: the required tests of
/// the HTTP caching suite (http-tests/cache-tests) that the cache failed, as table tests.
@Suite(.timeLimit(.minutes(1))) struct HTTPCacheFieldTests {
    /// The fields of one connection, and those `Connection` names, are not stored (RFC 9111 §3.1,
    /// the suite's `headers-store-*` and `headers-omit-headers-listed-in-Connection`).
    static let connectionFields: [(String, String)] = [
        ("Connection", "a, b"), ("a", "1"), ("b", "2"), ("Keep-Alive", "timeout=5"),
        ("Proxy-Authenticate", "Basic realm=\"proxy\""), ("Proxy-Authentication-Info", "nextnonce=\"x\""),
        ("Proxy-Authorization", "Basic eDp5"), ("Proxy-Connection", "keep-alive"), ("TE", "trailers"),
        ("Transfer-Encoding", "arizqhypgxofwne"), ("Upgrade", "h2c"),
    ]

    @Test func aHitServesNoFieldOfTheConnectionItWasStoredFrom() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { _, _ in
            StubResponse(
                headers: origin.headers([("Cache-Control", "max-age=3600"), ("c", "3")] + Self.connectionFields),
                body: "b"
            )
        }
        let (connection, _) = try origin.connection()
        let miss = try await connection.get("x").value
        #expect(miss.cacheStatus == .miss && miss.responseHeaders[HTTPField.Name("a")!] == "1")  // passed on as sent
        origin.clock.advance(3)
        let hit = try await connection.get("x").value
        #expect(hit.cacheStatus == .hit && origin.requests.count == 1)
        #expect(hit.responseHeaders[HTTPField.Name("c")!] == "3")
        for (name, _) in Self.connectionFields {
            #expect(hit.responseHeaders[HTTPField.Name(name)!] == nil, "\(name) was stored")
        }
    }

    /// A 304's connection fields do not update the stored response either.
    @Test func aRevalidationStoresNoFieldOfThe304sConnection() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, _ in
            call == 1
                ? StubResponse(
                    headers: origin.headers([("Cache-Control", "max-age=10"), ("ETag", "\"a\"")]),
                    body: "b"
                )
                : StubResponse(
                    status: .notModified,
                    headers: origin.headers([("Cache-Control", "max-age=10"), ("ETag", "\"a\""), ("d", "4")])
                        + HTTPFields(Self.connectionFields.map { HTTPField(name: HTTPField.Name($0.0)!, value: $0.1) })
                )
        }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x").value
        origin.clock.advance(11)
        #expect(try await connection.get("x").value.cacheStatus == .revalidated)
        let hit = try await connection.get("x").value
        #expect(hit.cacheStatus == .hit && origin.requests.count == 2)
        #expect(hit.responseHeaders[HTTPField.Name("d")!] == "4")
        for (name, _) in Self.connectionFields {
            #expect(hit.responseHeaders[HTTPField.Name(name)!] == nil, "\(name) was stored from the 304")
        }
    }

    struct AgeRow: Sendable, CustomTestStringConvertible {
        /// The suite's test id.
        let id: String
        let maxAge: Int
        /// The `Age` field's lines.
        let lines: [String]
        /// Served from the store 3 seconds later.
        let isFresh: Bool
        var testDescription: String { id }
    }

    /// The suite's `age-parse-*` tests: the first member of the first line counts, and a value
    /// that is not a number of seconds is ignored (the `-parameter` rows are its "check" tests).
    static let ageRows: [AgeRow] = [
        AgeRow(id: "age-parse-nonnumeric", maxAge: 3600, lines: ["abc"], isFresh: true),
        AgeRow(id: "age-parse-negative", maxAge: 3600, lines: ["-7200"], isFresh: true),
        AgeRow(id: "age-parse-float", maxAge: 3600, lines: ["7200.0"], isFresh: true),
        AgeRow(id: "age-parse-large-minus-one", maxAge: 3600, lines: ["2147483647"], isFresh: false),
        AgeRow(id: "age-parse-large", maxAge: 3600, lines: ["2147483648"], isFresh: false),
        AgeRow(id: "age-parse-larger", maxAge: 3600, lines: ["2147483649"], isFresh: false),
        AgeRow(id: "age-parse-suffix", maxAge: 3600, lines: ["7200, 0"], isFresh: false),
        AgeRow(id: "age-parse-prefix", maxAge: 3600, lines: ["0, 7200"], isFresh: true),
        AgeRow(id: "age-parse-suffix-twoline", maxAge: 3600, lines: ["7200", "0"], isFresh: false),
        AgeRow(id: "age-parse-prefix-twoline", maxAge: 3600, lines: ["0", "7200"], isFresh: true),
        AgeRow(id: "age-parse-dup-0", maxAge: 3600, lines: ["0, 0"], isFresh: true),
        AgeRow(id: "age-parse-dup-0-twoline", maxAge: 3600, lines: ["0", "0"], isFresh: true),
        AgeRow(id: "age-parse-dup-old", maxAge: 10000, lines: ["3600", "3600"], isFresh: true),
        AgeRow(id: "age-parse-parameter", maxAge: 3600, lines: ["7200;foo=bar"], isFresh: false),
        AgeRow(id: "age-parse-numeric-parameter", maxAge: 3600, lines: ["7200;foo=111"], isFresh: false),
    ]

    @Test(arguments: ageRows)
    func theAgeFieldDecidesFreshnessAsTheSuiteReadsIt(_ row: AgeRow) async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { _, _ in
            StubResponse(
                headers: origin.headers([("Cache-Control", "max-age=\(row.maxAge)")] + row.lines.map { ("Age", $0) }),
                body: "b"
            )
        }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x").value
        origin.clock.advance(3)
        let second = try await connection.get("x").value
        #expect((second.cacheStatus == .hit) == row.isFresh)
        #expect(origin.requests.count == (row.isFresh ? 1 : 2))
    }

    /// Two requests select the same stored variant when their selecting fields mean the same
    /// (RFC 9111 §4.1, the suite's `vary-normalise-*`): lines joined, whitespace around members
    /// dropped, case ignored where the field's values are case-insensitive; order kept.
    static let varyRows: [(field: String, first: [String], second: [String], isHit: Bool)] = [
        ("Foo", ["1, 2"], ["1", "2"], true), ("Foo", ["1,2"], [" 1, 2 "], true), ("Foo", ["a  b"], ["a b"], true),
        ("Accept-Language", ["en, de"], ["eN, De"], true), ("Accept-Language", ["en, de"], [" en ,   de"], true),
        ("Accept-Language", ["en, de"], ["de, en"], false), ("Accept-Language", ["en"], ["fr"], false),
        ("Foo", ["A"], ["a"], false), ("Foo", ["1"], [], false),
    ]

    @Test(arguments: varyRows)
    func selectingFieldsMatchByMeaning(
        _ row: (field: String, first: [String], second: [String], isHit: Bool)
    ) async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { _, _ in
            StubResponse(headers: origin.headers([("Cache-Control", "max-age=3600"), ("Vary", row.field)]), body: "b")
        }
        let (connection, _) = try origin.connection()
        let name = try #require(HTTPField.Name(row.field))
        _ = try await connection.get("x", headers: HTTPFields(row.first.map { HTTPField(name: name, value: $0) })).value
        let second = try await connection.get(
            "x",
            headers: HTTPFields(row.second.map { HTTPField(name: name, value: $0) })
        )
        .value
        #expect((second.cacheStatus == .hit) == row.isHit)
        #expect(origin.requests.count == (row.isHit ? 1 : 2))
    }
}
