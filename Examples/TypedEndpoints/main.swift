// Typed endpoints: describe each call once (method, path, body, credentials, what it decodes to),
// then send it. Runs against a local server.
//
//     swift run TypedEndpoints
import Faraday
import FaradayTestSupport
import Foundation

/// What the test server's `/echo` answers: the request as it saw it.
struct Echo: Decodable, Sendable {
    let method: String
    let uri: String
    let body: String
    let headers: [[String]]

    func header(_ name: String) -> String? {
        headers.first { $0.first?.lowercased() == name.lowercased() }?.last
    }
}

struct Greeting: Codable, Sendable {
    let message: String
    let count: Int
}

struct Token: Decodable, Sendable {
    let accessToken: String
    let expiresIn: Int
}

/// The service's endpoints, each a value: easy to read, to test and to reuse.
enum Service {
    /// Every endpoint starts here, with a header of the app's.
    static let base = Endpoint<Void>(.get, "", headers: [.appVersion: "example/1.0"], decoder: .none)

    static func echo(greeting: String) -> Endpoint<Echo> {
        Endpoint(.get, "echo", decoder: .json(), base: base).withQuery(["greeting": .string(greeting)])
    }

    static func send(_ greeting: Greeting) -> Endpoint<Echo> {
        var endpoint = Endpoint(.post, "echo", decoder: .json(Echo.self), base: base)
        endpoint.body = .json(greeting)
        return endpoint
    }

    static let token: Endpoint<Token> = {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        var endpoint = Endpoint(.post, "oauth/token", decoder: .json(Token.self, decoder: decoder), base: base)
        endpoint.body = .form(["grant_type": "client_credentials"])
        return endpoint
    }()

    static func secret(token: String) -> Endpoint<String> {
        Endpoint(.get, "protected", decoder: .text, base: base).authenticated(with: .bearer(token))
    }

    static let missing = Endpoint(.get, "status/404", decoder: .text, base: base)
}

extension Endpoint {
    /// This endpoint with more query parameters.
    func withQuery(_ params: Params) -> Endpoint {
        var endpoint = self
        endpoint.query = endpoint.query.merging(params)
        return endpoint
    }
}

extension HTTPField.Name {
    static let appVersion = HTTPField.Name.named("X-App-Version")
}

let server = try await TestServer.start()
let connection = try Connection(url: server.baseURL.absoluteString) { builder in
    builder.adapter = URLSessionAdapter()
}
let api = API(connection: connection)

let echo = try await api.send(Service.echo(greeting: "hello"))
print("GET echo: the server saw \(echo.method) \(echo.uri), X-App-Version \(echo.header("x-app-version") ?? "-")")

let posted = try await api.send(Service.send(Greeting(message: "Hello, Faraday", count: 2)))
print("POST echo: body \(posted.body), Content-Type \(posted.header("content-type") ?? "-")")

let token = try await api.send(Service.token)
print("POST oauth/token: token \(token.accessToken), expires in \(token.expiresIn) s")

let secret = try await api.send(Service.secret(token: token.accessToken))
print("GET protected with the token: \(secret)")

do throws(FaradayError) {
    _ = try await api.send(Service.secret(token: "stale"))
} catch {
    print("GET protected with a stale token: \(error.code), status \(error.status?.code ?? 0)")
}

do throws(FaradayError) {
    _ = try await api.send(Service.missing)
} catch {
    print("GET status/404: \(error.code), body \(error.response?.text ?? "")")
}

try await server.shutdown()
