// A loop of GETs through one benchmark stack on the TestAdapter, with nothing else in the
// process, for counting allocations (heaptrack) or instructions (callgrind) per request:
//
//     AllocProbe [empty|one|sixPassThrough|six|twelve] [count]
import BenchmarkStacks
import Faraday
import Foundation
import HTTPTypes

let stack = BenchmarkStack(rawValue: CommandLine.arguments.dropFirst().first ?? "six") ?? .six
let count = Int(CommandLine.arguments.dropFirst(2).first ?? "") ?? 10000
let adapter = TestAdapter()
var headers = HTTPFields()
headers[.contentType] = "application/json"
headers[.setCookie] = "session=abc123; Path=/; HttpOnly"  // as the loopback suite's server sends
adapter.stub(.get, .path("/items/1"), response: StubResponse(headers: headers, body: #"{"id":1,"name":"widget"}"#))
let connection = try Connection(url: "https://api.example.com") { builder in
    for handler in stack.handlers { builder.use(handler) }
    builder.adapter = adapter
}
for _ in 0..<count { _ = try await connection.get("items/1").value }
print("\(count) GETs through the \(stack.rawValue) stack")
