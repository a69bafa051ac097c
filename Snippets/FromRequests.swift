// Migrating from Requests: request providers, typed requests with decoders, body and
// authentication providers.
// snippet.hide
import Faraday
import Foundation

struct User: Codable, Sendable {
    var name: String
}

let user = User(name: "Ada")
let authToken = "DEADBEEF-DEADBEEF-DEADBEEF"
// snippet.show

// snippet.provider
extension HTTPField.Name {
    static let applicationKey = HTTPField.Name.named("X-Application-Key")
}

let connection = try Connection(url: "https://dev.example.com/api") { $0.adapter = URLSessionAdapter() }
var base = Endpoint<Void>(decoder: .none)
base.headers[.applicationKey] = "DEAD-BEEF"  // on every request built from `api`
let api = API(connection: connection, base: base)

// snippet.get
let fetched = try await api.send(api.get(.json(User.self), from: "user/1"))

// snippet.post
try await api.send(api.post(.json(user), to: "user"))

// snippet.authenticate
try await api.send(api.patch("user/1", with: .json(user)).authenticated(with: .bearer(authToken)))

// snippet.query
var search = api.get(.text, from: "users/search")
search.query = ["query": "alex", "limit": "30"]
let results = try await api.send(search)

// snippet.decoder
extension ResponseDecoder where Resource == [String] {
    /// The body's lines.
    static let lines = ResponseDecoder { env in
        String(decoding: env.body, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
    }
}
let bio = try await api.send(api.get(.lines, from: "user/1/bio"))

// snippet.providers
extension AuthenticationProvider {
    /// A scheme of your own.
    static func customToken(_ token: String) -> AuthenticationProvider {
        .custom { request in request.headers[.authorization] = "Custom \(token)" }
    }
}

extension RequestBody {
    /// Plain text in Latin-1.
    static func latin1(_ text: String) throws(FaradayError) -> RequestBody {
        guard let data = text.data(using: .isoLatin1) else {
            throw FaradayError(.encodingFailed, "Not representable in Latin-1.")
        }
        return .bytes(data, contentType: "text/plain; charset=iso-8859-1")
    }
}
try await api.send(api.put(try .latin1("Grüße"), to: "user/1/motto").authenticated(with: .customToken("t")))
// snippet.hide
print(fetched.name, results, bio)
// snippet.end
