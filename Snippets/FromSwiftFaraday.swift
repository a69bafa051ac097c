// Migrating from the original Swift Faraday: `use(handler:)`, `onComplete`, `Headers.auth`.
// snippet.hide
import Faraday
import Foundation

/// A middleware written for the original Swift Faraday's shape: a handler building it.
struct Stamp: Middleware {
    let app: any App
    func onRequest(_ env: inout Env) async throws {
        env.request.headers["X-Stamp"] = "1"
    }
    struct Handler: Faraday.Handler {
        func build(app: any App) -> any Middleware { Stamp(app: app) }
    }
}
// snippet.show

// snippet.connection
let connection = Connection()
connection.url = URL(string: "https://api.example.com/")
try connection.use(handler: Stamp.Handler())  // the original spellings still work
try connection.use(handler: URLSessionAdapter.Handler())  // installs the adapter
connection.headers.auth(login: "ada", pass: "lovelace")  // Basic
connection.headers.auth(token: "abc", options: ["realm": "api"])  // Token token="abc", realm="api"

// snippet.callbacks
connection.get(path: "heartbeat") { request in
    request.options.streaming = .lines
}.onComplete { env in
    if env.isFinal {
        print("done", env.error.map { "\($0)" } ?? "")
    } else {
        print(env.response?.text ?? "")  // one completion per line, as before
    }
}

// snippet.async
// New: the same handle can be awaited or iterated instead.
let env = try await connection.get("users/1").value
for try await line in connection.get("heartbeat", streaming: .lines).completions {
    if line.isFinal { break }
}
print(env.status?.code ?? 0)
// snippet.end
