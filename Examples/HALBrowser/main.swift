// HALBrowser: navigates a HAL API by link relations.
//
//     swift run HALBrowser
//
// The API (a shop's orders, paginated, with a templated search and a catalog) is served
// in-process on 127.0.0.1; nothing leaves the machine.
import Faraday
import FaradayHAL
import FaradayTestSupport
import Foundation

let server = try await TestServer.start()
let connection = try Connection(url: server.baseURL.absoluteString) { builder in
    builder.use(RaiseError.Handler())
    builder.use(EncodeHAL.Handler())
    builder.use(DecodeHAL.Handler())
    builder.adapter = URLSessionAdapter()
}

let root = try await connection.get("hal").representation
print("\(root["welcome"]?.string ?? "?") at \(server.baseURL)/hal")
print("  relations: \(root.relations.joined(separator: ", "))")

print("Every order, page by page (following `next`):")
let firstPage = try await root.follow("shop:orders", on: connection)
for try await page in firstPage.pages(on: connection) {
    for order in page.embedded("shop:order") {
        let items = order.embedded("shop:item").compactMap { $0["sku"]?.string }
        print(
            "  page \(page["page"] ?? "?"): order \(order["id"] ?? "?"), \(order["status"]?.string ?? "?"), items \(items)"
        )
    }
}

print("Search (a templated link) for shipped orders:")
let shipped = try await root.follow("shop:search", with: ["status": "shipped"], on: connection)
print("  \(shipped.embedded("shop:order").compactMap { $0.selfLink?.href })")

print("Books, by the relation path shop:catalog/shop:books:")
let books = try await root.follow(path: "shop:catalog/shop:books", on: connection)
print("  \(try books.results("shop:book").compactMap { $0["title"]?.string })")

print("Placing an order (POST application/hal+json):")
let order = Representation(["total": 21.0, "status": "new"])
    .embedding("shop:item", [Representation(["sku": "tea", "quantity": 2])])
let created = try await connection.post("hal/orders", body: .representation(order)).representation
print("  created \(created.selfLink?.href ?? "?") with \(created.embedded("shop:item").count) item(s)")

do {
    _ = try await root.follow("shop:basket", on: connection)
} catch {
    print("A relation the API does not have: \(error.message)")
}

try await server.shutdown()
