import Faraday
import Foundation

// A custom middleware: stamps every request with an id and reads it back from the completion.
struct RequestID: Middleware {
    let app: any App

    func onRequest(_ env: inout Env) async throws {
        env.request.headers[HTTPField.Name("X-Request-ID")!] = UUID().uuidString
    }

    struct Handler: Faraday.Handler {
        func build(app: any App) -> any App { RequestID(app: app) }
    }
}

// Stubs stand in for a server here; swap in a network adapter to talk to a real one.
let stubs = TestAdapter()
stubs.get("/v1/users/1") { _, _ in
    StubResponse(headers: [.contentType: "application/json"], body: #"{"id":1,"name":"Ada"}"#)
}
stubs.post("/v1/users") { env, _ in
    StubResponse(status: .created, body: "created \(String(decoding: env.request.body.bytes ?? Data(), as: UTF8.self))")
}
stubs.get("/v1/feed") { _, _ in
    StubResponse(chunks: ["first\n", "second\n", "third\n"].map { Data($0.utf8) })
}

let connection = try Connection(url: "https://api.example.com/v1") { builder in
    builder.use(RequestID.Handler())
    builder.adapter = stubs
}

struct User: Decodable { let id: Int; let name: String }

let user = try await connection.get("users/1").decode(User.self)
print("GET users/1 -> \(user.name)")

let created = try await connection.post("users", body: .text("Grace")).value
print("POST users -> \(created.status?.code ?? 0) \(created.response?.text ?? "")")

for try await env in connection.get("feed", configure: { $0.options.streaming = .chunks }).completions {
    print(env.isFinal ? "feed finished" : "feed frame \(env.phase.frameIndex ?? 0): \(env.response?.text ?? "")", terminator: env.isFinal ? "\n" : "")
}
