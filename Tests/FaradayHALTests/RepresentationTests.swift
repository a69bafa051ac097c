import Faraday
import FaradayHAL
import Foundation
import Testing

/// The example document of the HAL draft (draft-kelly-json-hal, section 6).
let draftExample = """
    {
      "_links": {
        "self": { "href": "/orders" },
        "curies": [{ "name": "ea", "href": "http://example.com/docs/rels/{rel}", "templated": true }],
        "next": { "href": "/orders?page=2" },
        "ea:find": { "href": "/orders{?id}", "templated": true },
        "ea:admin": [
          { "href": "/admins/2", "title": "Fred" },
          { "href": "/admins/5", "title": "Kate" }
        ]
      },
      "currentlyProcessing": 14,
      "shippedToday": 20,
      "_embedded": {
        "ea:order": [{
            "_links": {
              "self": { "href": "/orders/123" },
              "ea:basket": { "href": "/baskets/98712" },
              "ea:customer": { "href": "/customers/7809" }
            },
            "total": 30.00,
            "currency": "USD",
            "status": "shipped"
          }, {
            "_links": {
              "self": { "href": "/orders/124" },
              "ea:basket": { "href": "/baskets/97213" },
              "ea:customer": { "href": "/customers/12369" }
            },
            "total": 20.00,
            "currency": "USD",
            "status": "processing"
        }]
      }
    }
    """

@Suite struct RepresentationTests {
    private func draft() throws -> Representation { try Representation(data: Data(draftExample.utf8)) }

    @Test func readsTheDraftExample() throws {
        let orders = try draft()
        #expect(orders["currentlyProcessing"] == 14)
        #expect(orders.properties.keys.sorted() == ["currentlyProcessing", "shippedToday"])
        #expect(orders.selfLink?.href == "/orders")
        #expect(orders.link("next")?.href == "/orders?page=2")
        #expect(orders.links("ea:admin").map(\.title) == ["Fred", "Kate"])
        #expect(orders.link("ea:admin", name: nil)?.href == "/admins/2")
        #expect(orders.relations == ["ea:admin", "ea:find", "ea:order", "next", "self"])
        #expect(try orders.link("ea:find")?.expand(["id": "42"]) == "/orders?id=42")
        #expect(orders.curies.map(\.name) == ["ea"])
    }

    @Test func compactAndFullRelationsFindTheSameLinksAtAnyDepth() throws {
        let orders = try draft()
        #expect(orders.expandedRelation("ea:admin") == "http://example.com/docs/rels/admin")
        #expect(orders.links("http://example.com/docs/rels/admin").count == 2)
        #expect(orders.embedded("http://example.com/docs/rels/order").count == 2)
        // The embedded orders use the root's CURIE.
        let first = try #require(orders.embedded("ea:order").first)
        #expect(first.link("ea:basket")?.href == "/baskets/98712")
        #expect(first.link("http://example.com/docs/rels/customer")?.href == "/customers/7809")
        #expect(orders.link("other:admin") == nil)
        #expect(orders.links("missing").isEmpty)
    }

    @Test func decodesPropertiesIntoTypes() throws {
        struct Order: Decodable, Equatable {
            let total: Double
            let currency: String
            let status: String
        }
        let orders = try draft().results("ea:order").map { try $0.decode(Order.self) }
        #expect(
            orders == [
                Order(total: 30, currency: "USD", status: "shipped"),
                Order(total: 20, currency: "USD", status: "processing"),
            ]
        )
        #expect(try draft().property("shippedToday", as: Int.self) == 20)
        #expect(throws: FaradayError.self) { try draft().property("missing", as: Int.self) }
        #expect(throws: FaradayError.self) { try draft().property("shippedToday", as: [String].self) }
    }

    @Test func rendersBackToTheSameDocument() throws {
        let orders = try draft()
        let original = try JSONDecoder().decode(JSON.self, from: Data(draftExample.utf8))
        #expect(orders.json == original)
        #expect(try Representation(data: orders.encoded()) == orders)
        // Through Codable too.
        let coded = try JSONDecoder().decode(Representation.self, from: JSONEncoder().encode(orders))
        #expect(coded == orders)
    }

    @Test func everyLinkAttributeSurvives() throws {
        let link = Representation.Link(
            href: "/a{?b}",
            templated: true,
            type: "application/hal+json",
            deprecation: "https://example.com/dep",
            name: "n",
            profile: "https://example.com/profile",
            title: "T",
            hreflang: "en"
        )
        let document = Representation().addingLink("x", link)
        let read = try Representation(data: document.encoded())
        #expect(read.link("x") == link)
        #expect(read.json["_links"]?["x"]?["hreflang"] == "en")
    }

    @Test func buildsDocumentsFluently() throws {
        let item = Representation(["sku": "tea"]).addingLink("self", href: "/items/1")
        let order = Representation(["total": 30])
            .setting("currency", to: "USD")
            .addingLink("self", href: "/orders/1")
            .addingCURIE(name: "shop", href: "https://example.com/rels/{rel}")
            .addingLink("shop:related", href: "/a")
            .addingLink("shop:related", href: "/b")
            .addingLinks("shop:basket", [Representation.Link(href: "/baskets/1")])
            .embedding("shop:item", [item])
            .embedding("shop:customer", Representation(["name": "Ada"]))
        let expected: JSON = [
            "total": 30, "currency": "USD",
            "_links": [
                "self": ["href": "/orders/1"],
                "curies": [["href": "https://example.com/rels/{rel}", "templated": true, "name": "shop"]],
                "shop:related": [["href": "/a"], ["href": "/b"]],
                "shop:basket": [["href": "/baskets/1"]],
            ],
            "_embedded": [
                "shop:item": [["sku": "tea", "_links": ["self": ["href": "/items/1"]]]],
                "shop:customer": ["name": "Ada"],
            ],
        ]
        #expect(order.json == expected)
        #expect(order.links("https://example.com/rels/related").count == 2)
        #expect(try Representation(data: order.encoded()) == order)
    }

    @Test func templatedLinksExpandEveryLevelOfRFC6570() throws {
        let variables: [String: URITemplate.Value] = [
            "var": "value", "hello": "Hello World!", "path": "/foo/bar", "list": ["red", "green", "blue"],
            "keys": ["semi": ";", "dot": ".", "comma": ","],
        ]
        let cases: [(String, String)] = [
            ("{var}", "value"), ("{hello}", "Hello%20World%21"),  // level 1
            ("{+path}/here", "/foo/bar/here"), ("X{#var}", "X#value"),  // level 2
            // level 3
            ("/search{?var,hello}", "/search?var=value&hello=Hello%20World%21"), ("{/var,var}", "/value/value"),
            // level 4
            ("/colors{?list*}", "/colors?list=red&list=green&list=blue"), ("{;keys*}", ";semi=%3B;dot=.;comma=%2C"),
        ]
        for (template, expansion) in cases {
            let link = Representation.Link(href: template, templated: true)
            #expect(try link.expand(variables) == expansion, "\(template)")
        }
        // An untemplated href is taken as it is, braces and all.
        #expect(try Representation.Link(href: "/a{b}").expand(["b": "x"]) == "/a{b}")
        #expect(throws: FaradayError.self) { try Representation.Link(href: "/a{b", templated: true).expand() }
    }

    @Test func resultsWalkNestedEmbeddedResources() throws {
        let tree = Representation()
            .embedding(
                "order",
                [
                    Representation().embedding("item", [Representation(["n": 1]), Representation(["n": 2])]),
                    Representation().embedding("item", Representation(["n": 3])),
                    Representation(),
                ]
            )
        #expect(try tree.results("order/item").map { $0["n"] } == [1, 2, 3])
        #expect(try tree.results("order").count == 3)
        let error = #expect(throws: FaradayError.self) { try tree.results("order/nope") }
        #expect(error?.code == .relationNotFound)
        #expect(error?.message.contains("item") == true)
    }
}

@Suite struct MalformedHALTests {
    @Test(arguments: [
        "not json", "[]", "42", #"{"_links": []}"#, #"{"_links": {"self": 1}}"#, #"{"_links": {"self": {}}}"#,
        #"{"_links": {"self": {"href": 1}}}"#, #"{"_links": {"self": {"href": "/", "title": 2}}}"#,
        #"{"_links": {"self": [{"href": "/"}, "x"]}}"#, #"{"_embedded": "x"}"#, #"{"_embedded": {"a": 1}}"#,
        #"{"_embedded": {"a": [{"_links": {"self": {}}}]}}"#,
    ])
    func isAParsingErrorThatSaysWhy(_ document: String) {
        let error = #expect(throws: FaradayError.self) { try Representation(data: Data(document.utf8)) }
        #expect(error?.code == .parsingFailed)
    }

    @Test func nullLinksAndEmbeddedAreEmpty() throws {
        let document = try Representation(data: Data(#"{"_links": null, "_embedded": null, "a": 1}"#.utf8))
        #expect(document.links.isEmpty && document.embedded.isEmpty)
        #expect(document["a"] == 1)
    }

    @Test func nestingPastTheLimitIsRefused() throws {
        var json: JSON = ["leaf": true]
        for _ in 0...Representation.maximumDepth { json = ["_embedded": ["down": json]] }
        let error = #expect(throws: FaradayError.self) { try Representation(json: json) }
        #expect(error?.message.contains("nest") == true)
    }

    @Test func mutatedDocumentsNeverCrash() {
        let bytes = Array(draftExample.utf8)
        for _ in 0..<1_000 {
            var mutated = bytes
            for _ in 0..<4 { mutated[Int.random(in: 0..<mutated.count)] = UInt8.random(in: 32...126) }
            if let document = try? Representation(data: Data(mutated)) {
                _ = document.json
                _ = document.relations.map { document.links($0) }
            }
        }
    }
}
