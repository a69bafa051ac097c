// The middleware stack: the order of requests and completions, and editing the stack.
// snippet.hide
import Faraday

/// Prints its name on the way down and on the way up.
struct Trace: Middleware {
    let app: any App
    let name: String

    func onRequest(_ env: inout Env) async throws { print("\(name) request") }
    func onComplete(_ env: inout Env) throws { print("\(name) complete") }

    struct Handler: Faraday.Handler {
        let name: String
        func build(app: any App) -> any Middleware { Trace(app: app, name: name) }
    }
}

struct Outer: Faraday.Handler {
    func build(app: any App) -> any Middleware { Trace(app: app, name: "Outer") }
}
// snippet.show

// snippet.order
let stubs = TestAdapter()
stubs.get("/ping") { _, _ in StubResponse(body: "pong") }
let connection = try Connection(url: "https://api.example.com") { builder in
    builder.use(Trace.Handler(name: "A"))
    builder.use(Trace.Handler(name: "B"))
    builder.use(Trace.Handler(name: "C"))
    builder.adapter = stubs
}
connection.get("ping").onComplete { _ in print("callback") }
// A request, B request, C request, (adapter), C complete, B complete, A complete, callback

// snippet.editing
try connection.insert(Outer(), at: 0)  // before the first request only
try connection.swap(Outer.self, with: Trace.Handler(name: "Z"))
_ = try await connection.get("ping").value
do {
    try connection.use(Trace.Handler(name: "late"))
} catch {
    print(error.code)  // stackLocked: the stack is folded on the first request
}
// snippet.end
