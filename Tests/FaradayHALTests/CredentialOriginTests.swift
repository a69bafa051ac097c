import Faraday
import FaradayHAL
import Foundation
import Testing

/// Links are the server's word: following one never carries the connection's credentials to
/// another origin (another host, or http from https) unless the user names that origin.
@Suite(.timeLimit(.minutes(1))) struct CredentialOriginTests {
    /// The credential headers each URL received.
    final class Received: Sendable {
        private let seen = Locked<[String: [String]]>([:])

        func record(_ env: Env) {
            let fields = env.request.headers.filter { ["authorization", "x-api-key"].contains($0.name.canonicalName) }
            seen.withLock { $0[env.request.url.absoluteString] = fields.map { "\($0.name): \($0.value)" }.sorted() }
        }

        subscript(_ url: String) -> [String]? { seen.withLock { $0[url] } }
    }

    static let links: [String: String] = [
        "same": "/v1/orders", "evil": "//evil.example/steal", "downgrade": "http://api.example.com/v1/plain",
        "other": "https://other-host.example/x", "next": "https://evil.example/page2",
    ]

    /// A HAL root at https://api.example.com/v1/root linking to every target of ``links``, each
    /// answering an empty HAL document and recording what it received.
    private func shop() -> (TestAdapter, Received) {
        let stubs = TestAdapter()
        let received = Received()
        let links = Self.links.mapValues { ["href": $0] }
        let root = String(decoding: try! JSONSerialization.data(withJSONObject: ["_links": links]), as: UTF8.self)
        stubs.get("https://api.example.com/v1/root") { env, _ in
            received.record(env)
            return StubResponse(headers: [.contentType: "application/hal+json"], body: root)
        }
        for target in [
            "https://api.example.com/v1/orders", "https://evil.example/steal", "http://api.example.com/v1/plain",
            "https://other-host.example/x", "https://evil.example/page2",
        ] {
            stubs.get(target) { env, _ in
                received.record(env)
                return StubResponse(headers: [.contentType: "application/hal+json"], body: "{}")
            }
        }
        return (stubs, received)
    }

    private func connection(_ url: String?, _ stubs: TestAdapter, origins: [String] = []) throws -> Connection {
        var options = RequestOptions()
        options.credentialOrigins = origins
        var headers = HTTPFields()
        headers[HTTPField.Name("X-Api-Key")!] = "k3y"
        return Connection(url: url.flatMap(URL.init(string:)), headers: headers, options: options) { builder in
            builder.use(DecodeHAL.Handler())
            builder.use(Authorization.Handler(.bearer("t0k")))
            builder.adapter = stubs
        }
    }

    private let credentials = ["Authorization: Bearer t0k", "X-Api-Key: k3y"]

    @Test func linksToAnotherOriginGetNoCredentialsAndDownToHTTPAreRefused() async throws {
        let (stubs, received) = shop()
        let connection = try connection("https://api.example.com/v1", stubs)
        let root = try await connection.get("root").representation
        for relation in ["same", "evil", "other"] { _ = try await root.follow(relation, on: connection) }
        let downgrade = await #expect(throws: FaradayError.self) { try await root.follow("downgrade", on: connection) }
        #expect(downgrade?.code == .insecureRedirect, "an https document's link to http is not followed")
        #expect(received["https://api.example.com/v1/root"] == credentials)
        #expect(received["https://api.example.com/v1/orders"] == credentials)
        #expect(received["https://evil.example/steal"] == [])
        #expect(received["http://api.example.com/v1/plain"] == nil)
        #expect(received["https://other-host.example/x"] == [])
    }

    /// Issue 66: a link whose host, decoded, would add header lines is refused before anything
    /// is sent.
    @Test func aLinkToAHostileHostIsRefused() async throws {
        let stubs = TestAdapter()
        let root = #"{"_links":{"evil":{"href":"https://evil%0d%0aX-Injected%3A%20yes/x"}}}"#
        stubs.get("https://api.example.com/v1/root") { _, _ in
            StubResponse(headers: [.contentType: "application/hal+json"], body: root)
        }
        let connection = try connection("https://api.example.com/v1", stubs)
        let representation = try await connection.get("root").representation
        let error = await #expect(throws: FaradayError.self) { try await representation.follow("evil", on: connection) }
        #expect(error?.code == .invalidURL)
        #expect(stubs.calls.count == 1, "only the root was asked for")
    }

    @Test func aNextPageOnAnotherOriginGetsNoCredentials() async throws {
        let (stubs, received) = shop()
        let connection = try connection("https://api.example.com/v1", stubs)
        let root = try await connection.get("root").representation
        var pages = 0
        for try await _ in root.pages(following: "next", on: connection) { pages += 1 }
        #expect(pages == 2)
        #expect(received["https://evil.example/page2"] == [])
    }

    @Test func originsTheUserNamesGetCredentials() async throws {
        let (stubs, received) = shop()
        let connection = try connection("https://api.example.com/v1", stubs, origins: ["https://Other-Host.example/"])
        let root = try await connection.get("root").representation
        _ = try await root.follow("other", on: connection)
        _ = try await root.follow("evil", on: connection)
        #expect(received["https://other-host.example/x"] == credentials)
        #expect(received["https://evil.example/steal"] == [])
    }

    @Test(arguments: [false, true])
    func trustNeverMovesAlongAChainOfPages(_ hasBaseURL: Bool) async throws {
        let stubs = TestAdapter()
        let received = Received()
        let pages = [
            "https://api.example.com/v1/list": "https://evil.example/2",
            "https://evil.example/2": "https://evil.example/3", "https://evil.example/3": nil,
        ]
        for (page, next) in pages {
            let body =
                next.map {
                    #"{"_links":{"next":{"href":"\#($0)"}},"_embedded":{"item":{"_links":{"more":{"href":"\#($0)?via=embedded"}}}}}"#
                } ?? "{}"
            stubs.get(page) { env, _ in
                received.record(env)
                return StubResponse(headers: [.contentType: "application/hal+json"], body: body)
            }
        }
        stubs.get("https://evil.example/2?via=embedded") { env, _ in
            received.record(env)
            return StubResponse(headers: [.contentType: "application/hal+json"], body: "{}")
        }
        let connection = try connection(hasBaseURL ? "https://api.example.com/v1" : nil, stubs)
        let first = try await connection.get("https://api.example.com/v1/list").representation
        var count = 0
        for try await _ in first.pages(on: connection) { count += 1 }
        #expect(count == 3)
        #expect(received["https://api.example.com/v1/list"] == credentials)
        #expect(received["https://evil.example/2"] == [])
        #expect(received["https://evil.example/3"] == [], "page 3 is not trusted for being linked from page 2")
        _ = try await first.follow(path: "item/more", on: connection)
        #expect(received["https://evil.example/2?via=embedded"] == [])
    }

    @Test func withoutABaseURLLinksStayOnTheirDocumentsOrigin() async throws {
        let (stubs, received) = shop()
        let connection = try connection(nil, stubs)
        let root = try await connection.get("https://api.example.com/v1/root").representation
        for relation in ["same", "evil"] { _ = try await root.follow(relation, on: connection) }
        await #expect(throws: FaradayError.self) { try await root.follow("downgrade", on: connection) }
        #expect(received["https://api.example.com/v1/root"] == credentials)
        #expect(received["https://api.example.com/v1/orders"] == credentials)
        #expect(received["https://evil.example/steal"] == [])
        #expect(received["http://api.example.com/v1/plain"] == nil)
    }
}
