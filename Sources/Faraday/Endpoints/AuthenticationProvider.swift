import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Adds credentials to a request: bearer, basic, token, or your own function, which may be
/// asynchronous (to read a keychain or fetch a token) and sees the whole request (to sign it).
///
/// Endpoints use providers directly (``Endpoint/authenticated(with:)``); connections use them
/// through the ``Authorization`` middleware.
///
/// ```swift
/// let me = api.get(.json(User.self), from: "me").authenticated(with: .bearer(token))
/// ```
public struct AuthenticationProvider: Sendable {
    private let body: @Sendable (inout Request) async throws -> Void

    /// Creates a provider from a function that adds credentials to the request.
    public init(_ authenticate: @escaping @Sendable (inout Request) async throws -> Void) {
        self.body = authenticate
    }

    /// Applies the provider.
    func authenticate(_ request: inout Request) async throws {
        try await body(&request)
    }

    /// `Authorization: Bearer <token>`.
    public static func bearer(_ token: String) -> AuthenticationProvider {
        let value = "Bearer " + token
        return AuthenticationProvider { $0.headers[.authorization] = value }
    }

    /// `Authorization: Basic <base64(login:password)>` (UTF-8).
    public static func basic(login: String, password: String) -> AuthenticationProvider {
        AuthenticationProvider { $0.headers.auth(login: login, pass: password) }
    }

    /// `Authorization: Token token="…"` with options.
    public static func token(_ token: String, options: [String: String] = [:]) -> AuthenticationProvider {
        AuthenticationProvider { $0.headers.auth(token: token, options: options) }
    }

    /// Your own scheme: `authenticate` sets whatever the request needs (usually a header).
    public static func custom(
        _ authenticate: @escaping @Sendable (inout Request) async throws -> Void
    ) -> AuthenticationProvider {
        AuthenticationProvider(authenticate)
    }
}
