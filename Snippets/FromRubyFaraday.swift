// Migrating from Ruby Faraday: the same vocabulary, in Swift.
// snippet.hide
import Faraday
import Foundation

// snippet.show

// snippet.connection
let conn = try Connection(url: "https://api.example.com", headers: [.named("X-App"): "docs"]) { f in
    f.use(EncodeJSON.Handler())
    f.use(Authorization.Handler(.bearer("s3cret")))
    f.use(DecodeJSON.Handler())
    f.use(RaiseError.Handler())
    f.use(HTTPLogger.Handler())
    f.adapter = URLSessionAdapter()
}

// snippet.requests
let response = try await conn.get("search", params: ["q": "swift"], headers: [.accept: "application/json"]).value
print(response.status?.code ?? 0, response.json?["items"] ?? .null)

_ = try await conn.post("users") { req in
    req.body = .json(["name": "Ada"])
    req.options.timeout = .seconds(5)
}.value

// snippet.middleware
struct Stamp: Middleware {
    enum StampedKey: EnvKey { typealias Value = Bool }
    let app: any App

    func onRequest(_ env: inout Env) async throws {
        env.request.headers["X-Stamp"] = "\(Int(Date().timeIntervalSince1970))"
    }

    func onComplete(_ env: inout Env) throws {
        env[StampedKey.self] = true
    }

    struct Handler: Faraday.Handler {
        func build(app: any App) -> any Middleware { Stamp(app: app) }
    }
}

// snippet.stubs
let stubs = TestAdapter()
stubs.get("/ping") { _, _ in StubResponse(status: .ok, body: "pong") }
let test = try Connection(url: "https://api.example.com") { $0.adapter = stubs }
_ = try await test.get("ping").value
try stubs.verifyStubbedCalls()

// snippet.errors
do {
    _ = try await conn.get("users/404").value
} catch {
    switch error.code {
    case .resourceNotFound: print(error.status?.code ?? 0)
    case .connectionFailed, .connectTimeout, .readTimeout: print("network")
    default: throw error
    }
}
// snippet.end
