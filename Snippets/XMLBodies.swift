// The setup of the FaradayXML overview.
// snippet.hide
import Faraday
import FaradayXML

struct Order: Codable, Sendable {
    var id: Int
    var items: [String]
}

func xmlBodies() async throws {
    // snippet.show
    // snippet.setup
    let shop = try Connection(url: "https://shop.example.com/api") { builder in
        builder.use(EncodeXML.Handler())  // .xml(value, root:) bodies, as application/xml
        builder.use(DecodeXML.Handler())  // Accept: application/xml; hostile XML refused
    }
    let order = try await shop.get("orders/7").decodeXML(Order.self)
    _ = shop.post("orders", body: .xml(Order(id: 8, items: ["tea"]), root: "order"))
    // snippet.hide
    print(order.id)
}
