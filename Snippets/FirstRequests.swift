// Getting started: a connection, requests, and the ways to consume a response.
// snippet.hide
import Faraday
import Foundation

struct User: Codable, Sendable {
    let id: Int
    let name: String
}
// snippet.show

// snippet.connection
let connection = try Connection(
    url: "https://api.example.com/v1",
    headers: [.accept: "application/json"],
    params: ["api_version": "2"]
) { builder in
    builder.use(RaiseError.Handler())
    builder.adapter = URLSessionAdapter()
}

// snippet.requests
let env = try await connection.get("users/1").value
print(env.status?.code ?? 0, env.response?.text ?? "")

let user = try await connection.get("users/1").decode(User.self)
print(user.name)

let created = try await connection.post("greetings") { request in
    request.setQuery(values: ["world"], forName: "hello")
    request.body = .text("hi")
}.value
print(created.status?.code ?? 0)

// snippet.callbacks
connection.get("users/1").onComplete { env in
    print(env.error.map { "\($0)" } ?? "\(env.status?.code ?? 0)")
}

// snippet.stream
let feed = connection.get("feed", streaming: .chunks)
for try await frame in feed.completions where !frame.isFinal {
    print("\(frame.body.count) bytes")
}

// snippet.errors
do {
    _ = try await connection.get("users/1").value
} catch {
    switch error.code {
    case .connectionFailed, .connectTimeout: print("offline")
    case .resourceNotFound: print("no such user")
    case .cancelled: break
    default: print("failed: \(error)")
    }
}
// snippet.end
