import Foundation
import NIOCore
import NIOHTTP1

/// A small HAL API under `/hal`: a shop's orders with embedded items, paginated by `next`, a
/// templated search, a catalog reached by a relative link, and order creation by POST.
///
/// - `/hal`: the root, with the `shop` CURIE and links `shop:orders`, `shop:search`
///   (`/hal/orders/search{?status}`, templated) and `shop:catalog`.
/// - `/hal/orders?page=N`: two orders a page, three pages, linked by `next` and `prev`.
/// - `/hal/orders/ID`: one order (1…6), its items embedded as `shop:item`.
/// - `/hal/orders/search?status=S`: the orders with that status, embedded.
/// - `/hal/catalog`: a `shop:books` link with the relative `href` `books`.
/// - `/hal/books`: three books embedded as `shop:book`.
/// - `POST /hal/orders`: takes an `application/hal+json` order (415 for another type, 400 for
///   malformed JSON) and answers 201 with it, given the id 7 and a `self` link.
/// - `/hal/loop`: a page whose `next` link is itself. `/hal/broken`: `_links` is an array.
enum HALRoutes {
    static let mediaType = "application/hal+json"
    private static var curies: [[String: Any]] { [["name": "shop", "href": "/hal/rels/{rel}", "templated": true]] }
    private static let orderIDs = Array(1...6)

    static func respond(to request: ServerRequest, with writer: ResponseWriter) async throws {
        let segments = request.path.split(separator: "/").dropFirst().map(String.init)
        let isPost = request.head.method == .POST
        switch (segments.first, segments.dropFirst().first, isPost) {
        case (nil, _, false):
            try await send(root(), writer)
        case ("orders", nil, false):
            try await send(ordersPage(request.int("page", default: 1)), writer)
        case ("orders", "search"?, false):
            let status = request.query["status"] ?? ""
            let found = orderIDs.filter { self.status(of: $0) == status }.map(order)
            try await send(
                [
                    "query": status, "count": found.count,
                    "_links": ["self": ["href": "/hal/orders/search?status=\(status)"], "curies": curies],
                    "_embedded": ["shop:order": found],
                ],
                writer
            )
        case ("orders", let id?, false):
            guard let id = Int(id), orderIDs.contains(id) else {
                return try await writer.respond(404, text: "no order \(id)")
            }
            try await send(order(id), writer)
        case ("orders", nil, true):
            try await create(request, writer)
        case ("catalog", nil, false):
            try await send(
                ["_links": ["self": ["href": "/hal/catalog"], "curies": curies, "shop:books": ["href": "books"]]],
                writer
            )
        case ("books", nil, false):
            let books = ["Dune", "Emma", "Ulysses"].map {
                ["title": $0, "_links": ["self": ["href": "/hal/books/\($0.lowercased())"]]]
            }
            try await send(
                ["count": books.count, "_links": ["self": ["href": "/hal/books"]], "_embedded": ["shop:book": books]],
                writer
            )
        case ("loop", nil, false):
            try await send(["_links": ["self": ["href": "/hal/loop"], "next": ["href": "/hal/loop"]]], writer)
        case ("broken", nil, false):
            try await writer.respond(200, headers: [("content-type", mediaType)], text: #"{"_links":[1,2]}"#)
        default:
            try await writer.respond(404, text: "no HAL route for \(request.path)")
        }
    }

    private static func root() -> [String: Any] {
        [
            "welcome": "Faraday shop",
            "_links": [
                "self": ["href": "/hal"],
                "curies": curies,
                "shop:orders": ["href": "/hal/orders", "title": "Orders"],
                "shop:search": ["href": "/hal/orders/search{?status}", "templated": true],
                "shop:catalog": ["href": "/hal/catalog"],
            ],
        ]
    }

    private static func status(of id: Int) -> String { id.isMultiple(of: 2) ? "shipped" : "processing" }

    private static func order(_ id: Int) -> [String: Any] {
        let items = (1...(id % 3 + 1)).map { index in ["sku": "sku-\(id)-\(index)", "quantity": index] }
        return [
            "id": id, "total": Double(id) * 10.5, "status": status(of: id),
            "_links": ["self": ["href": "/hal/orders/\(id)"], "curies": curies],
            "_embedded": ["shop:item": items],
        ]
    }

    private static func ordersPage(_ page: Int) -> [String: Any] {
        let pageCount = 3
        var links: [String: Any] = ["self": ["href": "/hal/orders?page=\(page)"], "curies": curies]
        if page < pageCount { links["next"] = ["href": "/hal/orders?page=\(page + 1)"] }
        if page > 1 { links["prev"] = ["href": "/hal/orders?page=\(page - 1)"] }
        let ids = orderIDs.dropFirst((page - 1) * 2).prefix(2)
        return ["page": page, "count": orderIDs.count, "_links": links, "_embedded": ["shop:order": ids.map(order)]]
    }

    private static func create(_ request: ServerRequest, _ writer: ResponseWriter) async throws {
        let type = request.head.headers.first(name: "content-type")?.split(separator: ";").first.map(String.init)
        guard type == mediaType else { return try await writer.respond(415, text: "send \(mediaType)") }
        guard
            var order = try? JSONSerialization.jsonObject(with: Data(request.body.readableBytesView)) as? [String: Any]
        else {
            return try await writer.respond(400, text: "malformed JSON")
        }
        order["id"] = 7
        var links = order["_links"] as? [String: Any] ?? [:]
        links["self"] = ["href": "/hal/orders/7"]
        order["_links"] = links
        try await send(order, writer, status: 201)
    }

    private static func send(_ document: [String: Any], _ writer: ResponseWriter, status: Int = 200) async throws {
        let data = try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])
        try await writer.respond(status, headers: [("content-type", mediaType)], body: ByteBuffer(bytes: data))
    }
}
