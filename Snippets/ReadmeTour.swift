// The code of README.md, compiled by `swift build` so that the README stays true.
// snippet.hide
import Faraday
import Foundation

struct User: Decodable, Sendable {
    let id: Int
}
let token = "s3cret"
// snippet.show

// snippet.firstRequests
let connection = try Connection(url: "https://api.example.com/v1") { builder in
    builder.use(Authorization.Handler(.bearer(token)))  // middleware, outermost first
    builder.use(Retry.Handler(statuses: [503]))
    builder.use(RaiseError.Handler())
    builder.adapter = URLSessionAdapter()  // or AsyncHTTPClientAdapter()
}

let user = try await connection.get("users/1").decode(User.self)  // await and decode
let created = try await connection.post("users", body: .text("…")).value  // the whole env
for try await frame in connection.get("feed", streaming: .ndjson).completions {
    if !frame.isFinal { print(frame.body.count) }  // one per frame
}
connection.get("users/2").onComplete { env in print(env.status?.code ?? "failed") }  // callbacks

// snippet.middleware
struct ClientName: Middleware {
    let app: any App
    func onRequest(_ env: inout Env) async throws {
        env.request.headers["X-Client-Name"] = "my-app"
    }
    struct Handler: Faraday.Handler {
        func build(app: any App) -> any Middleware { ClientName(app: app) }
    }
}
// snippet.hide
print(user.id, created.status?.code ?? 0)
// snippet.end
