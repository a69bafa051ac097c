import Foundation
import HTTPTypes
import Testing

@testable import Faraday

/// One cache, many users (issue 66): an app server calls an API on behalf of its users through
/// one `Connection`, each call with its user's credentials. No user is ever answered with what
/// another's request brought back, from the store or from a request on its way.
@Suite(.timeLimit(.minutes(1))) struct HTTPCacheUserTests {
    /// Alice's and Bob's credentials in one field.
    struct Users: Sendable, CustomTestStringConvertible {
        let field: HTTPField.Name
        let alice: String
        let bob: String
        var testDescription: String { field.canonicalName }
    }

    static let users = [
        Users(field: .authorization, alice: "Bearer ALICE", bob: "Bearer BOB"),
        Users(field: .cookie, alice: "session=ALICE", bob: "session=BOB"),
        Users(field: HTTPField.Name("X-API-Key")!, alice: "ALICE", bob: "BOB"),
    ]

    /// An origin whose `/v1/me` answers with the credentials it was sent and its call number.
    private func origin(_ cacheControl: String, _ more: [(String, String)] = []) -> CachedOrigin {
        let origin = CachedOrigin()
        origin.route("/v1/me") { call, request in
            let who = Self.users.compactMap { request.headers[$0.field] }.first ?? "nobody"
            return StubResponse(
                headers: origin.headers([("Cache-Control", cacheControl)] + more),
                body: "\(who) \(call)"
            )
        }
        return origin
    }

    private func connection(_ origin: CachedOrigin, singleUser: Bool = false) throws -> Connection {
        try origin.connection { cache in
            cache.additionalCredentialFields = [HTTPField.Name("X-API-Key")!]
            cache.isSharedByUsers = !singleUser
        }.0
    }

    private func text(_ env: Env) -> String { env.response?.text ?? "" }

    private func me(_ connection: Connection, _ field: HTTPField.Name, _ value: String) async throws -> Env {
        try await connection.get("me", headers: [field: value]).value
    }

    @Test(arguments: users)
    func twoUsersOfOneConnectionAreNeverAnsweredWithEachOthersPrivateResponse(_ users: Users) async throws {
        let origin = origin("private, max-age=60, must-revalidate")
        let connection = try connection(origin)
        for user in [users.alice, users.bob] {
            for _ in 0..<2 {
                let env = try await me(connection, users.field, user)
                #expect(text(env).hasPrefix(user + " "))
            }
        }
        #expect(origin.requests.count == 4)
    }

    /// A layer below the cache that sets each user's token (from a field the cache does not
    /// key on) makes the key the same for everyone: only a `public` answer is stored then.
    @Test(arguments: ["private, max-age=60", "max-age=60, must-revalidate", "s-maxage=60", "public, max-age=60"])
    func credentialsAddedBelowTheCacheStoreOnlyAPublicAnswer(_ cacheControl: String) async throws {
        struct TokenBelow: Middleware {
            let app: any App
            func onRequest(_ env: inout Env) async throws {
                let user = env.request.headers[HTTPField.Name("X-User")!] ?? "nobody"
                env.request.headers[.authorization] = "Bearer " + user.uppercased()
            }
        }
        let origin = origin(cacheControl)
        let (connection, _) = try origin.connection(below: [TokenBelowHandler { TokenBelow(app: $0) }])
        let alice = try await connection.get("me", headers: [HTTPField.Name("X-User")!: "alice"]).value
        let bob = try await connection.get("me", headers: [HTTPField.Name("X-User")!: "bob"]).value
        #expect(text(alice).hasPrefix("Bearer ALICE"))
        if cacheControl.hasPrefix("public") {
            #expect(text(bob) == text(alice), "public: anyone may have it")
        } else {
            #expect(text(bob).hasPrefix("Bearer BOB"), "Bob was answered with Alice's response")
            #expect(origin.requests.count == 2)
        }
    }

    @Test(arguments: users)
    func concurrentCallsOfTwoUsersAreNotMerged(_ users: Users) async throws {
        let gate = AsyncGate()
        let origin = CachedOrigin()
        origin.adapter.stub(.get, .path("/v1/me")) { env, _ in
            let who = env.request.headers[users.field] ?? "nobody"
            if who == users.alice { await gate.wait() }
            let headers = origin.headers([("Cache-Control", "private, max-age=60, must-revalidate")])
            return StubResponse(headers: headers, body: who)
        }
        let (connection, cache) = try origin.connection {
            $0.additionalCredentialFields = [HTTPField.Name("X-API-Key")!]
        }
        let alice = Task { try await me(connection, users.field, users.alice) }
        #expect(await Self.poll { origin.requests.count == 1 })  // Alice's request is on its way
        let bob = Task { try await me(connection, users.field, users.bob) }
        // Bob either waits for Alice's request (the flaw) or sends his own.
        #expect(await Self.poll { cache.shared.flights.waiting == 1 || origin.requests.count == 2 })
        gate.open()
        #expect(try await alice.value.response?.text == users.alice)
        #expect(try await bob.value.response?.text == users.bob)
        #expect(origin.requests.count == 2)
    }

    /// RFC 9111 §3.5 in a cache shared by users: a response to a request with credentials is
    /// stored when it says a shared cache may store it (`public`, `must-revalidate`,
    /// `s-maxage`), never when it is `private`, and then for the same credentials only.
    @Test(
        arguments: [
            ("public, max-age=60", true), ("must-revalidate, max-age=60", true), ("s-maxage=60, max-age=60", true),
            ("max-age=60", false), ("private, max-age=60, must-revalidate", false),
            ("private, public, max-age=60", false), ("private, s-maxage=60, max-age=60", false),
        ],
        users
    )
    func aSharedCacheStoresACredentialedResponseAsRFC9111Section35Says(
        _ row: (cacheControl: String, stored: Bool),
        _ users: Users
    ) async throws {
        let origin = origin(row.cacheControl)
        let connection = try connection(origin)
        _ = try await me(connection, users.field, users.alice)
        let again = try await me(connection, users.field, users.alice)
        #expect(again.cacheStatus == (row.stored ? .hit : .uncacheable))
        let bob = try await me(connection, users.field, users.bob)
        #expect(text(bob).hasPrefix(users.bob + " ") && bob.cacheStatus != .hit)
        #expect(origin.requests.count == (row.stored ? 2 : 3))
    }

    @Test(arguments: users)
    func aSingleUserCacheStoresAPrivateAnswerForTheSameCredentialsOnly(_ users: Users) async throws {
        let origin = origin("private, max-age=60, must-revalidate")
        let connection = try connection(origin, singleUser: true)
        #expect(try await me(connection, users.field, users.alice).cacheStatus == .miss)
        let again = try await me(connection, users.field, users.alice)
        #expect(again.cacheStatus == .hit && again.response?.text == "\(users.alice) 1")
        let bob = try await me(connection, users.field, users.bob)
        #expect(bob.cacheStatus == .miss && bob.response?.text == "\(users.bob) 2")
        #expect(try await me(connection, users.field, users.bob).cacheStatus == .hit)
        #expect(origin.requests.count == 2)
    }

    @Test func aRequestWithoutCredentialsIsKeyedByItsURLAlone() async throws {
        let origin = origin("private, max-age=60")
        let connection = try connection(origin)
        _ = try await connection.get("me").value
        #expect(try await connection.get("me").value.cacheStatus == .hit)
        let store = MemoryCacheStore()
        let (other, _) = try origin.connection(store)
        _ = try await other.get("me").value
        #expect(!store.entries(for: "https://api.example.com/v1/me").isEmpty)
    }

    @Test(arguments: [HTTPField.Name.setCookie, HTTPField.Name("Set-Cookie2")!])
    func setCookieReachesTheCallerFromTheServerAndNeverFromTheStore(_ field: HTTPField.Name) async throws {
        let origin = origin("max-age=60", [(field.rawName, "session=NEW")])
        let (connection, _) = try origin.connection()
        let miss = try await connection.get("me").value
        #expect(miss.cacheStatus == .miss && miss.responseHeaders[field] == "session=NEW")
        let hit = try await connection.get("me").value
        #expect(hit.cacheStatus == .hit && hit.responseHeaders[field] == nil)
    }

    @Test func aRevalidationPassesOnThe304sSetCookieAndStoresNone() async throws {
        let origin = CachedOrigin()
        origin.route("/v1/x") { call, _ in
            let headers = origin.headers([
                ("Cache-Control", "max-age=10"), ("ETag", "\"a\""), ("Set-Cookie", "session=\(call)"),
            ])
            return call == 1
                ? StubResponse(headers: headers, body: "body") : StubResponse(status: .notModified, headers: headers)
        }
        let (connection, _) = try origin.connection()
        _ = try await connection.get("x").value
        origin.clock.advance(20)
        let revalidated = try await connection.get("x").value
        #expect(revalidated.cacheStatus == .revalidated && revalidated.response?.text == "body")
        #expect(revalidated.responseHeaders[values: .setCookie] == ["session=2"])
        let hit = try await connection.get("x").value
        #expect(hit.cacheStatus == .hit && hit.responseHeaders[.setCookie] == nil)
    }

    /// Whether `condition` came true (polled for at most 20 s: a bound on waiting for what must
    /// happen, not a measure of time).
    static func poll(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<20_000 where !condition() { try? await Task.sleep(for: .milliseconds(1)) }
        return condition()
    }
}

/// A handler for a middleware made by a function.
private struct TokenBelowHandler: Handler {
    let build: @Sendable (any App) -> any Middleware

    func build(app: any App) -> any Middleware { build(app) }
}
