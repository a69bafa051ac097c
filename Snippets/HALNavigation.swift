// HAL: reading representations, following relations, paging, and writing.
// snippet.hide
import Faraday
import FaradayHAL
import Foundation

// snippet.show

// snippet.setup
let connection = try Connection(url: "https://shop.example") { builder in
    builder.use(RaiseError.Handler())
    builder.use(EncodeHAL.Handler())
    builder.use(DecodeHAL.Handler())
    builder.adapter = URLSessionAdapter()
}

// snippet.navigate
let root = try await connection.get("/").representation
print(root.relations)
let firstPage = try await root.follow("shop:orders", on: connection)
for try await page in firstPage.pages(on: connection) {
    for order in page.embedded("shop:order") {
        print(order["total"] ?? "-", order.link("shop:customer")?.href ?? "-")
    }
}
let book = try await root.follow("shop:find", with: ["isbn": "9780262510875"], on: connection)
print(book.selfLink?.href ?? "-")

// snippet.write
let order = Representation(["total": 21.0])
    .addingLink("shop:customer", href: "/customers/9")
    .embedding("shop:item", [Representation(["sku": "tea", "quantity": 2])])
let created = try await connection.post("orders", body: .representation(order)).representation
print(created.selfLink?.href ?? "-")
// snippet.end
