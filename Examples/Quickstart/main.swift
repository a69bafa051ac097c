// Quickstart: a connection with a middleware stack and a real adapter, talking to a local server.
//
//     swift run Quickstart
//
// The server is started in-process on 127.0.0.1 (an ephemeral port); nothing leaves the machine.
import Faraday
import FaradayTestSupport
import Foundation

/// Stamps every request with an id.
struct RequestID: Middleware {
    let app: any App

    func onRequest(_ env: inout Env) async throws {
        env.request.headers["X-Request-ID"] = UUID().uuidString
    }

    struct Handler: Faraday.Handler {
        func build(app: any App) -> any Middleware { RequestID(app: app) }
    }
}

/// Prints one line per completion, on the way back up.
struct PrintCompletions: Middleware {
    let app: any App

    func onComplete(_ env: inout Env) throws {
        let status = env.status.map { "\($0.code)" } ?? "-"
        print(
            "  <- \(env.request.method.rawValue) \(env.request.url.path) \(status) \(env.phase) \(env.body.count) bytes"
        )
    }

    struct Handler: Faraday.Handler {
        func build(app: any App) -> any Middleware { PrintCompletions(app: app) }
    }
}

struct Echo: Decodable {
    let method: String
    let uri: String
    let body: String
    let headers: [[String]]
}

let server = try await TestServer.start()
let connection = try Connection(url: server.baseURL.absoluteString) { builder in
    builder.use(PrintCompletions.Handler())
    builder.use(RequestID.Handler())
    builder.adapter = URLSessionAdapter()
}
print("Server on \(server.baseURL)")

print("GET /echo?greeting=hello")
let echo = try await connection.get("echo", params: ["greeting": "hello"]).decode(Echo.self)
let requestID = echo.headers.first { $0.first?.lowercased() == "x-request-id" }?.last ?? "none"
print("  server saw \(echo.method) \(echo.uri), X-Request-ID \(requestID)")

print("POST /echo with a text body")
let posted = try await connection.post("echo", body: .text("Hello, Faraday")).decode(Echo.self)
print("  server saw body \(posted.body.debugDescription)")

print("GET /chunked, streamed: one completion per chunk")
let stream = connection.get("chunked", params: ["count": "4", "size": "12", "interval": "150"]) {
    $0.options.streaming = .chunks
}
for try await env in stream.completions where !env.isFinal {
    print("  frame \(env.phase.frameIndex ?? 0): \(env.response?.text ?? "")")
}

try await server.shutdown()
