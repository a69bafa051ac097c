import Foundation
import Testing

@testable import Faraday

/// RFC 8288 `Link` fields, and pagination by their `next` links.
@Suite(.timeLimit(.minutes(1))) struct WebLinkTests {
    private let base = URL(string: "https://api.example.com/v1/items?page=1")

    private func parse(_ values: String...) -> [WebLink] { WebLink.parse(values, relativeTo: base) }

    @Test func rfc8288Examples() {
        let previous = parse(#"<http://example.com/TheBook/chapter2>; rel="previous"; title="previous chapter""#)
        #expect(previous.map(\.target.absoluteString) == ["http://example.com/TheBook/chapter2"])
        #expect(previous.first?.relations == ["previous"])
        #expect(previous.first?.parameters == ["title": "previous chapter"])

        let relative = parse(#"</>; rel="http://example.net/foo""#)
        #expect(relative.first?.target.absoluteString == "https://api.example.com/")
        #expect(relative.first?.has(relation: "http://example.net/foo") == true)

        let anchored = parse(##"</terms>; rel="copyright"; anchor="#foo""##)
        #expect(anchored.first?.parameters["anchor"] == "#foo")

        let chapters = parse(
            "</TheBook/chapter2>; rel=\"previous\"; title*=UTF-8'de'letztes%20Kapitel, "
                + "</TheBook/chapter4>; rel=\"next\"; title*=UTF-8'de'n%c3%a4chstes%20Kapitel"
        )
        #expect(chapters.map(\.relations) == [["previous"], ["next"]])
        #expect(chapters.last?.parameters["title*"] == "UTF-8'de'n%c3%a4chstes%20Kapitel")

        let several = parse(#"<http://example.org/>; rel="start http://example.net/relation/other""#)
        #expect(several.first?.relations == ["start", "http://example.net/relation/other"])
    }

    @Test func gitHubsPagination() {
        let links = parse(
            #"<https://api.github.com/repositories/1300192/issues?page=2>; rel="prev", "#
                + #"<https://api.github.com/repositories/1300192/issues?page=4>; rel="next", "#
                + #"<https://api.github.com/repositories/1300192/issues?page=515>; rel="last", "#
                + #"<https://api.github.com/repositories/1300192/issues?page=1>; rel="first""#
        )
        #expect(links.map { $0.relations.first ?? "" } == ["prev", "next", "last", "first"])
        #expect(links[1].target.query == "page=4")
    }

    @Test func commasInTargetsAndQuotesDoNotSplitLinks() {
        let links = parse(#"<https://e.com/a,b>; rel="next"; title="a, b", <https://e.com/c>; rel=last"#)
        #expect(links.map(\.target.absoluteString) == ["https://e.com/a,b", "https://e.com/c"])
        #expect(links.first?.parameters["title"] == "a, b")
        #expect(links.last?.relations == ["last"])
    }

    @Test func malformedLinksAreSkippedAndTheRestRead() {
        let links = parse(#"garbage, <https://e.com/ok>; rel=NEXT; rel=prev, <no end; rel=x"#, "<https://e.com/2>")
        #expect(links.map(\.target.absoluteString) == ["https://e.com/ok", "https://e.com/2"])
        #expect(links.first?.relations == ["next"], "only the first rel counts, lowercased")
        #expect(parse("", ",,, ", "<>; rel=self").map(\.target.absoluteString) == [base?.absoluteString])
    }

    @Test func anEnvReadsEveryLinkField() throws {
        var env = Env(request: Request(method: .get, url: try #require(base)))
        var headers = HTTPFields()
        headers.append(HTTPField(name: try #require(HTTPField.Name("Link")), value: #"<?page=2>; rel="next""#))
        headers.append(HTTPField(name: try #require(HTTPField.Name("Link")), value: #"<?page=9>; rel="last""#))
        env.response = ResponseData(status: .ok, headers: headers)
        #expect(env.link("next")?.absoluteString == "https://api.example.com/v1/items?page=2")
        #expect(env.link("LAST")?.absoluteString == "https://api.example.com/v1/items?page=9")
        #expect(env.link("prev") == nil)
    }
}

@Suite(.timeLimit(.minutes(1))) struct LinkPaginationTests {
    /// Pages `/v1/items?page=N` of `[N]`, each linking to the next as `Link` does, up to 3; the
    /// Authorization each received.
    private func pages(third: String = "https://api.example.com/v1/items?page=3") -> (TestAdapter, Locked<[String]>) {
        let stubs = TestAdapter()
        let seen = Locked<[String]>([])
        let next = ["1": "<?page=2>; rel=\"next\"", "2": "<\(third)>; rel=\"next\""]
        for host in ["https://api.example.com", "https://evil.example"] {
            stubs.get("\(host)/v1/items") { env, _ in
                let page = env.request.params["page"]?.string ?? "?"
                seen.withLock { $0.append("\(page) \(env.request.headers[.authorization] ?? "none")") }
                var headers: HTTPFields = [.contentType: "application/json"]
                if let link = next[page] { headers[HTTPField.Name("Link")!] = link }
                return StubResponse(headers: headers, body: "[\(page)]")
            }
        }
        return (stubs, seen)
    }

    @Test func everyPageIsFollowedToTheLast() async throws {
        let (stubs, seen) = pages()
        let connection = try makeConnection([Authorization.Handler(.bearer("t0k"))], adapter: stubs)
        var numbers: [[Int]] = []
        for try await page in connection.pages("items", params: ["page": "1"]) {
            numbers.append(try page.decode([Int].self))
        }
        #expect(numbers == [[1], [2], [3]])
        #expect(seen.withLock { $0 } == ["1 Bearer t0k", "2 Bearer t0k", "3 Bearer t0k"])
    }

    @Test func aNextPageOnAnotherOriginIsFetchedWithoutCredentials() async throws {
        let (stubs, seen) = pages(third: "https://evil.example/v1/items?page=3")
        let connection = try makeConnection([Authorization.Handler(.bearer("t0k"))], adapter: stubs)
        var count = 0
        for try await _ in connection.pages("items?page=1") { count += 1 }
        #expect(count == 3)
        #expect(seen.withLock { $0 }.last == "3 none")
    }

    @Test func aLinkBackToAPageSeenFails() async throws {
        let (stubs, _) = pages(third: "https://api.example.com/v1/items?page=1")
        let connection = try makeConnection(adapter: stubs)
        let error = await #expect(throws: FaradayError.self) {
            for try await _ in connection.pages("items?page=1") {}
        }
        #expect(error?.code == .invalidResponse)
    }

    @Test func aLinkFromHTTPSToHTTPIsRefused() async throws {
        let (stubs, seen) = pages(third: "http://api.example.com/v1/items?page=3")
        let connection = try makeConnection(adapter: stubs)
        var count = 0
        let error = await #expect(throws: FaradayError.self) {
            for try await _ in connection.pages("items?page=1", headers: [.authorization: "Bearer call"]) { count += 1 }
        }
        #expect(error?.code == .insecureRedirect)
        #expect(count == 1, "the page that named the http link is not handed out")
        #expect(seen.withLock { $0 } == ["1 Bearer call", "2 Bearer call"])
    }

    @Test func theCallsOwnCredentialsStayOnTheFirstPagesOrigin() async throws {
        let (stubs, seen) = pages(third: "https://evil.example/v1/items?page=3")
        let connection = try makeConnection(adapter: stubs)
        for try await _ in connection.pages("items?page=1", headers: [.authorization: "Bearer call"]) {}
        #expect(seen.withLock { $0 } == ["1 Bearer call", "2 Bearer call", "3 none"])
    }

    @Test func typedEndpointsPageTooDecodedAndAuthenticated() async throws {
        let (stubs, seen) = pages()
        let api = API(connection: try makeConnection(adapter: stubs))
        let endpoint = Endpoint<[Int]>(.get, "items", query: ["page": "1"], decoder: .json())
            .authenticated(with: .bearer("t0k"))
        var all: [Int] = []
        for try await page in api.pages(of: endpoint) { all += page }
        #expect(all == [1, 2, 3])
        #expect(seen.withLock { $0 } == ["1 Bearer t0k", "2 Bearer t0k", "3 Bearer t0k"])
    }
}
