// The stacks of the articles on bodies, resilience, credentials and typed endpoints.
// snippet.hide
import Faraday
import Foundation
import Logging

struct User: Codable, Sendable {
    let id: Int
    let name: String
}
struct Session: Decodable, Sendable {
    let token: String
}
let support = URL(filePath: "/tmp")
let saved = OAuthCredential(accessToken: "a", refreshToken: "r", expiresIn: .seconds(3600))
func renew(_ old: OAuthCredential) async throws -> OAuthCredential { old }
let movieURL = URL(filePath: "/tmp/launch.mp4")
let token = "s3cret"
let newUser = User(id: 0, name: "Ada")

/// A monitor that keeps the protocol's default (empty) reactions.
struct CountingMonitor: EventMonitor {}
let monitor = CountingMonitor()
// snippet.show

// snippet.bodies
let bodies = try Connection(url: "https://api.example.com") { builder in
    builder.use(EncodeJSON.Handler())  // .json(…) with its own encoder
    builder.use(URLEncoded.Handler())  // .form(…)
    builder.use(Multipart.Handler())  // .multipart(…)
    builder.use(EncodePropertyList.Handler())  // .propertyList(…)
    builder.use(RaiseError.Handler())  // 4xx and 5xx become errors
    builder.use(ValidateContentType.Handler())  // the answer must be a type the request accepts
    builder.use(DecodeJSON.Handler())  // JSON answers decoded into env.json
    builder.adapter = URLSessionAdapter()
}

// snippet.multipart
let upload = bodies.post(
    "videos",
    body: .multipart([
        .text("title", "Launch"),
        .file("video", at: movieURL, contentType: "video/mp4"),
    ])
)

// snippet.resilience
let jar = CookieJar()
let resilient = try Connection(url: "https://api.example.com") { builder in
    builder.use(Instrumentation.Handler(monitors: [monitor]))  // sees the whole call
    builder.use(Timeout.Handler(.seconds(30)))  // bounds every attempt and wait
    builder.use(ConcurrencyLimit.Handler(maximum: 8))
    builder.use(FollowRedirects.Handler())
    builder.use(Retry.Handler(statuses: [429, 503]))
    builder.use(Timeout.Handler(.seconds(5)))  // bounds each attempt
    builder.use(Cookies.Handler(jar: jar))  // below redirects: every hop's cookies
    builder.use(Decompression.Handler())
    builder.adapter = URLSessionAdapter()
}

// snippet.identity
let fileJar = try CookieJar(file: support.appending(path: "cookies.json"))
let tokens = CredentialStore(credential: saved) { old in try await renew(old) }

let signedIn = try Connection(url: "https://api.example.com") { builder in
    builder.use(HTTPLogger.Handler(logger: Logger(label: "api"), request: .bodies))
    builder.use(Cookies.Handler(jar: fileJar))
    builder.use(TokenRefresh.Handler(store: tokens))
    builder.adapter = URLSessionAdapter()
}
// at logout or account switch:
signedIn.reset()

// snippet.typedEndpoints
let connection = try Connection(url: "https://api.example.com/v1") { builder in
    builder.use(DecodeJSON.Handler())  // any middleware: everything goes through the stack
    builder.adapter = URLSessionAdapter()
}
var base = Endpoint<Void>(decoder: .none)
base.headers["X-App-Key"] = "DEAD-BEEF"
let api = API(connection: connection, base: base.authenticated(with: .bearer(token)))

let user = try await api.send(api.get(.json(User.self), from: "users/1"))
let created = try await api.send(api.post(.json(newUser), to: "users", expecting: .json(User.self)))
try await api.send(api.delete("users/1"))

// snippet.dependent
let v2 = Endpoint<Void>(.get, "v2", headers: [.userAgent: "App/iOS"], decoder: .none)
let session = Endpoint(.post, "session", decoder: .json(Session.self), base: v2)  // POST v2/session
// snippet.hide
print(user, created, session.path, upload, resilient)
// snippet.end
