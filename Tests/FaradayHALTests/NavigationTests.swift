import Faraday
import FaradayHAL
import FaradayTestSupport
import Foundation
import Testing

/// Navigation against the in-process server's HAL API (`HALRoutes` in FaradayTestSupport).
@Suite(.timeLimit(.minutes(1))) struct NavigationTests {
    private func withShop(_ body: (Connection, Representation) async throws -> Void) async throws {
        let server = try await TestServer.start()
        let connection = try Connection(url: server.baseURL.absoluteString) { builder in
            builder.use(EncodeHAL.Handler())
            builder.use(DecodeHAL.Handler())
            builder.adapter = URLSessionAdapter()
        }
        do {
            let root = try await connection.get("hal").representation
            try await body(connection, root)
        } catch {
            try await server.shutdown()
            throw error
        }
        try await server.shutdown()
    }

    @Test func followsRelationsAndPagesToTheEnd() async throws {
        try await withShop { connection, root in
            #expect(root["welcome"] == "Faraday shop")
            let firstPage = try await root.follow("shop:orders", on: connection)
            var pages: [Int] = []
            var orders: [Representation] = []
            for try await page in firstPage.pages(on: connection) {
                pages.append(page["page"]?.int ?? 0)
                orders += page.embedded("shop:order")
            }
            #expect(pages == [1, 2, 3])
            #expect(orders.compactMap { $0["id"]?.int } == [1, 2, 3, 4, 5, 6])
            // Items embedded in the embedded orders, through the root's CURIE.
            #expect(
                try firstPage.results("shop:order/shop:item").map { $0["sku"]?.string } == [
                    "sku-1-1", "sku-1-2", "sku-2-1", "sku-2-2", "sku-2-3",
                ]
            )
        }
    }

    @Test func expandsTemplatedLinks() async throws {
        try await withShop { connection, root in
            let shipped = try await root.follow("shop:search", with: ["status": "shipped"], on: connection)
            #expect(shipped["query"] == "shipped")
            #expect(shipped.embedded("shop:order").compactMap { $0["id"]?.int } == [2, 4, 6])
            // The same relation by its full URI.
            let full = try await root.follow("/hal/rels/search", with: ["status": "processing"], on: connection)
            #expect(full["count"] == 3)
        }
    }

    @Test func walksARelationPathThroughARelativeLink() async throws {
        try await withShop { connection, root in
            // `shop:books` is the relative href "books", resolved against /hal/catalog.
            let books = try await root.follow(path: "shop:catalog/shop:books", on: connection)
            #expect(books.selfLink?.href == "/hal/books")
            #expect(try books.results("shop:book").compactMap { $0["title"]?.string } == ["Dune", "Emma", "Ulysses"])
            // A path through an embedded resource takes it without a request.
            let page = try await root.follow(path: "shop:orders/shop:order", on: connection)
            #expect(page["id"] == 1)
        }
    }

    @Test func postsARepresentation() async throws {
        try await withShop { connection, _ in
            let order = Representation(["total": 12.5, "status": "new"])
                .addingLink("shop:customer", href: "/hal/customers/9")
                .embedding("shop:item", [Representation(["sku": "tea", "quantity": 2])])
            let created = try await connection.post("hal/orders", body: .representation(order)).value
            #expect(created.response?.status == .created)
            let answer = try #require(created.representation)
            #expect(answer["id"] == 7)
            #expect(answer.selfLink?.href == "/hal/orders/7")
            #expect(answer.link("shop:customer")?.href == "/hal/customers/9")
            #expect(answer.embedded("shop:item").first?["sku"] == "tea")
        }
    }

    @Test func aMissingRelationNamesTheOnesThereAre() async throws {
        try await withShop { connection, root in
            let error = await #expect(throws: FaradayError.self) {
                try await root.follow("shop:basket", on: connection)
            }
            #expect(error?.code == .relationNotFound)
            #expect(error?.message.contains("shop:orders") == true)
            #expect(error?.message.contains("shop:search") == true)
        }
    }

    @Test func badAnswersAreTypedErrors() async throws {
        try await withShop { connection, _ in
            let broken = await #expect(throws: FaradayError.self) { try await connection.get("hal/broken").value }
            #expect(broken?.code == .parsingFailed)
            #expect(broken?.bodyText == #"{"_links":[1,2]}"#)

            let missing = Representation().addingLink("gone", href: "/hal/orders/99")
            let notFound = await #expect(throws: FaradayError.self) { try await missing.follow("gone", on: connection) }
            #expect(notFound?.code == .resourceNotFound)

            let loop = try await connection.get("hal/loop").representation
            let looped = await #expect(throws: FaradayError.self) {
                for try await _ in loop.pages(on: connection) {}
            }
            #expect(looped?.code == .invalidResponse)

            let plain = await #expect(throws: FaradayError.self) { try await connection.get("echo").representation }
            #expect(plain?.code == .parsingFailed)
        }
    }

    /// Issue 44: the loop error put the raw `href`, token and all, in its message.
    @Test func aLinkThatLeadsBackIsReportedWithoutItsCredentials() async throws {
        let secret = "/items?access_token=SECRET-QUERY"
        let page = Representation(url: URL(string: "https://api.example.com\(secret)"))
            .addingLink("self", href: secret)
            .addingLink("next", href: secret)
        let connection = try Connection(url: "https://api.example.com") { $0.adapter = TestAdapter() }
        let error = await #expect(throws: FaradayError.self) {
            for try await _ in page.pages(on: connection) {}
        }
        #expect(error?.code == .invalidResponse)
        #expect(error.map { !$0.message.contains("SECRET") && !"\($0)".contains("SECRET") } == true)
    }

    @Test func aLinkFromAnHTTPSDocumentToHTTPIsRefused() async throws {
        let stubs = TestAdapter()
        stubs.get("http://api.example.com/items") { _, _ in StubResponse(body: "{}") }
        let connection = try Connection(url: "https://api.example.com") { $0.adapter = stubs }
        let page = Representation(url: URL(string: "https://api.example.com/")).addingLink(
            "items",
            href: "http://api.example.com/items"
        )
        let error = await #expect(throws: FaradayError.self) { try await page.follow("items", on: connection) }
        #expect(error?.code == .insecureRedirect)
        #expect(stubs.calls.isEmpty)
    }

    @Test func aLinkDumpsItsHrefRedacted() {
        let link = Representation.Link(href: "https://api.example.com/items?access_token=SECRET-QUERY")
        var dumped = ""
        dump(link, to: &dumped)
        for text in [dumped, "\(link)", String(reflecting: link)] { #expect(!text.contains("SECRET"), "\(text)") }
    }

    @Test func navigationWorksWithoutDecodeHAL() async throws {
        let server = try await TestServer.start()
        let connection = try Connection(url: server.baseURL.absoluteString) { $0.adapter = URLSessionAdapter() }
        // No DecodeHAL in the stack: following a link reads the answer itself.
        let root = Representation(url: server.baseURL).addingLink("orders", href: "/hal/orders?page=3")
        let last = try await root.follow("orders", on: connection)
        #expect(last["page"] == 3)
        #expect(last.link("next") == nil)
        try await server.shutdown()
    }
}
