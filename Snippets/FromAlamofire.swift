// Migrating from Alamofire: interceptors, validation, serializers and trust evaluators.
// snippet.hide
import Faraday
import FaradayAsyncHTTPClient
import Foundation

struct User: Decodable, Sendable {
    let id: Int
}

func refreshToken(_ old: OAuthCredential) async throws -> OAuthCredential {
    OAuthCredential(accessToken: "new", refreshToken: old.refreshToken, expiresIn: .seconds(3600))
}
// snippet.show

// snippet.request
let connection = try Connection(url: "https://api.example.com") { builder in
    builder.use(RaiseError.Handler())  // validate(statusCode: 200..<300)
    builder.use(ValidateContentType.Handler(acceptableContentTypes: ["application/json"]))
    builder.adapter = URLSessionAdapter()
}
let user = try await connection.get("users/1", params: ["q": "swift"]).decode(User.self)

// snippet.interceptor
let store = CredentialStore(
    credential: OAuthCredential(accessToken: "old", refreshToken: "r", expiresIn: .seconds(3600)),
    refresh: refreshToken  // single-flight: concurrent 401s share one refresh
)
let authenticated = try Connection(url: "https://api.example.com") { builder in
    builder.use(TokenRefresh.Handler(store: store))  // adapt + retry on 401
    builder.use(Retry.Handler(maxAttempts: 3))  // RetryPolicy
    builder.adapter = URLSessionAdapter()
}

// snippet.trust
let trusted = try Connection(url: "https://example.com") { builder in
    builder.use(
        CertificatePinning.Handler(
            PinningPolicy([
                .pin("example.com", [try .publicKeySHA256("sha256/47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=")])
            ])
        )
    )
    builder.adapter = AsyncHTTPClientAdapter()
}

// snippet.curl
let request = try connection.makeRequest(method: .get, "users/1")
print(request.curlCommand())  // credentials redacted
print(user.id)
// snippet.end
