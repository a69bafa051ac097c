import HTTPTypes

/// Adds credentials to an endpoint's request headers: bearer, basic, token, or your own
/// function, which may be asynchronous (to read a keychain or fetch a token).
///
/// ```swift
/// let me = api.get(.json(User.self), from: "me").authenticated(with: .bearer(token))
/// ```
public struct AuthenticationProvider: Sendable {
    private let body: @Sendable (inout HTTPFields) async throws -> Void

    /// Creates a provider from a function that adds credentials to the headers.
    public init(_ authenticate: @escaping @Sendable (inout HTTPFields) async throws -> Void) {
        self.body = authenticate
    }

    /// Applies the provider.
    func authenticate(_ headers: inout HTTPFields) async throws {
        try await body(&headers)
    }

    /// `Authorization: Bearer <token>`.
    public static func bearer(_ token: String) -> AuthenticationProvider {
        AuthenticationProvider { $0.bearer(token) }
    }

    /// `Authorization: Basic <base64(login:password)>` (UTF-8).
    public static func basic(login: String, password: String) -> AuthenticationProvider {
        AuthenticationProvider { $0.auth(login: login, pass: password) }
    }

    /// `Authorization: Token token="…"` with options.
    public static func token(_ token: String, options: [String: String] = [:]) -> AuthenticationProvider {
        AuthenticationProvider { $0.auth(token: token, options: options) }
    }

    /// Your own scheme: `authenticate` sets whatever headers it needs.
    public static func custom(_ authenticate: @escaping @Sendable (inout HTTPFields) async throws -> Void) -> AuthenticationProvider {
        AuthenticationProvider(authenticate)
    }
}
