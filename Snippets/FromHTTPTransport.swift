// Migrating from HTTPTransport: `send`, interceptors, parameter encodings and `Security`.
// snippet.hide
import Faraday
import FaradayAsyncHTTPClient
import Foundation

struct Employee: Codable, Sendable {
    let id: Int
    let name: String
}
// snippet.show

// snippet.send
let connection = try Connection(url: "https://api.example.com/v1") { builder in
    builder.use(RaiseError.Handler())
    builder.adapter = AsyncHTTPClientAdapter()
}
let api = API(connection: connection)
let employee = try await api.send(api.get(.json(Employee.self), from: "employees/1"))

// Synchronous, off the cooperative pool (a thread of your own):
// let env = try connection.get("employees/1").wait(timeout: .seconds(10))

// snippet.parameters
let created = try await connection.post("employees") { request in
    try request.apply([
        ParameterSet(["first_name": "John"], encoding: .url),
        ParameterSet(["salary": 100_000], encoding: .json),
    ])
}.value

// snippet.interceptors
struct ClientVersion: Middleware {
    let app: any App
    func onRequest(_ env: inout Env) async throws {
        env.request.headers["X-Client-Version"] = "2.1"
    }
    struct Handler: Faraday.Handler {
        func build(app: any App) -> any Middleware { ClientVersion(app: app) }
    }
}

// snippet.security
let pinned = try Connection(url: "https://api.example.com") { builder in
    builder.use(ClientVersion.Handler())
    builder.use(
        CertificatePinning.Handler(
            PinningPolicy([
                .pin(
                    "api.example.com",
                    [
                        try .certificateSHA256(
                            "AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89"
                        )
                    ]
                )
            ])
        )
    )
    builder.adapter = AsyncHTTPClientAdapter()
}
print(employee.name, created.status?.code ?? 0)
// snippet.end
