import Benchmark
import BenchmarkStacks
import Faraday
import Foundation
import HTTPTypes

/// A whole GET through a connection on the TestAdapter, for each benchmark stack and for each of
/// the six middleware alone: the cost of the stack, the connection and the response handle with
/// no I/O. The stub answers as the loopback suite's server does: a small JSON document and a cookie.
func stackBenchmarks() {
    for stack in BenchmarkStack.allCases {
        Benchmark("Stack/GET, \(stack.rawValue) stack, TestAdapter") { benchmark, connection in
            for _ in benchmark.scaledIterations {
                blackHole(try await connection.get("items/1").value)
            }
        } setup: {
            try makeConnection(stack.handlers)
        }
    }
    for (name, handler) in BenchmarkStack.namedSix {
        Benchmark("Stack/GET, \(name) alone, TestAdapter") { benchmark, connection in
            for _ in benchmark.scaledIterations {
                blackHole(try await connection.get("items/1").value)
            }
        } setup: {
            try makeConnection([handler])
        }
    }
}

private func makeConnection(_ handlers: [any Handler]) throws -> Connection {
    let adapter = TestAdapter()
    var headers = HTTPFields()
    headers[.contentType] = "application/json"
    headers[.setCookie] = "session=abc123; Path=/; HttpOnly"  // as the loopback suite's server sends
    adapter.stub(.get, .path("/items/1"), response: StubResponse(headers: headers, body: #"{"id":1,"name":"widget"}"#))
    let connection = try Connection(url: "https://api.example.com") { builder in
        for handler in handlers { builder.use(handler) }
        builder.adapter = adapter
    }
    return connection
}
