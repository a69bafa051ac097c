// Recipes: one short example for each common task, each explained in depth in its own article.
// snippet.hide
import Faraday
import Foundation

struct User: Decodable, Sendable {
    let id: Int
    let name: String
}

struct Issue: Decodable, Sendable {
    let title: String
}

struct Order: Encodable, Sendable {
    let item: String
    let quantity: Int
}

/// Stands in for your HMAC-SHA256 of `body` under your key (CryptoKit's or swift-crypto's
/// `HMAC<SHA256>`), hex-encoded: the core of Faraday depends on no crypto library.
func hmacSHA256Hex(_ body: Data) -> String { String(body.count, radix: 16) }

let destination = URL(fileURLWithPath: NSHomeDirectory()).appending(path: "Downloads/app.zip")

let connection = try Connection(url: "https://api.example.com") { builder in
    builder.use(RaiseError.Handler())
    builder.adapter = URLSessionAdapter()
}
// snippet.show

// snippet.pages
var titles: [String] = []
for try await page in connection.pages("repos/swiftlang/swift/issues", params: ["per_page": "100"]) {
    let issues = try page.decode([Issue].self)  // each page is the final Env of its request
    titles += issues.map(\.title)
}
print("\(titles.count) issues")

// snippet.retry
let resilient = try Connection(url: "https://api.example.com") { builder in
    builder.use(RaiseError.Handler())  // what the last attempt got becomes an error
    builder.use(Retry.Handler(maxAttempts: 4, errors: [.connectTimeout, .readTimeout], statuses: [503]))
    builder.adapter = URLSessionAdapter()
}
do {
    _ = try await resilient.get("reports/today").value
} catch {
    switch error.code {  // `error` is a FaradayError: no cast
    case .connectTimeout, .readTimeout: print("still timing out: \(error.message)")
    case .serverError where error.status == .serviceUnavailable: print("still unavailable")
    default: print(error)
    }
}

// snippet.events
var events = connection.eventSource("orders/events")
events.reconnectionTime = .seconds(5)  // until the server's `retry:` says otherwise
for try await event in events where event.type == "shipped" {
    print(event.lastEventID, event.data)  // reconnects with Last-Event-ID when the stream drops
}

// snippet.signing
struct SignBody: Middleware {  // adds X-Signature, made from the body bytes that go on the wire
    let app: any App
    let sign: @Sendable (Data) -> String
    func onRequest(_ env: inout Env) async throws {
        let body = try await env.requestBodyBytes()  // a value is encoded now, a stream read in
        env.request.headers["X-Signature"] = sign(body)
    }
}

let signed = try Connection(url: "https://api.example.com") { builder in
    builder.use { SignBody(app: $0, sign: hmacSHA256Hex) }  // above the encoder is fine
    builder.use(EncodeJSON.Handler())
    builder.adapter = URLSessionAdapter()
}
_ = try await signed.post("orders", body: .json(Order(item: "book", quantity: 2))).value

// snippet.stub
let stubs = TestAdapter()
stubs.get("/users/1") { _, _ in
    StubResponse(headers: [.contentType: "application/json"], body: #"{"id":1,"name":"Ada"}"#)
}
let stubbed = try Connection(url: "https://api.example.com") { $0.adapter = stubs }
let ada = try await stubbed.get("users/1").decode(User.self)
assert(ada.name == "Ada")
try stubs.verifyStubbedCalls()  // throws, naming every stub no request used

// snippet.download
let download = try await connection.download("releases/app.zip", to: destination, resumeAttempts: 5)
    .onDownloadProgress { print("\(Int(($0.fractionCompleted ?? 0) * 100)) %") }
    .value
if let file = download.downloadedFile {  // set once the file is whole
    print("\(file.length) bytes in \(file.url.path), resumed from \(file.resumedFrom)")
}

// snippet.diskCache
// A folder of the user's own, never one others may write in such as /tmp.
let caches = try FileManager.default.url(for: .cachesDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
    .appending(path: "com.example.app/api-cache", directoryHint: .isDirectory)
let store = try DiskCacheStore(directory: caches, capacity: 100 << 20)
let cached = try Connection(url: "https://api.example.com") { builder in
    builder.use(HTTPCache.Handler(store: store, isSharedByUsers: false))  // one user: an app, a tool
    builder.adapter = URLSessionAdapter()
}
let catalog = try await cached.get("catalog").value
print(catalog.cacheStatus == .hit ? "from the disk" : "from the server")

// snippet.cassette
let cassette = CassetteAdapter(
    cassette: URL(fileURLWithPath: "Tests/Cassettes/users.json"),
    mode: .once,  // the first run records through URLSession; later runs replay the file
    recordingWith: URLSessionAdapter()
)
let replayed = try Connection(url: "https://api.example.com") { $0.adapter = cassette }
let recorded = try await replayed.get("users/1").decode(User.self)
print(recorded.name, cassette.interactions.count)

// snippet.inATask
let load = Task {
    do throws(FaradayError) {  // a closure infers `any Error`: say the type here
        let user = try await connection.get("users/1").decode(User.self)
        print(user.name)
    } catch {
        print(error.code, error.message)  // a FaradayError
    }
}
await load.value
// snippet.end
