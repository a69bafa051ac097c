/// Adds credentials to every request of a connection that has no `Authorization` header of its
/// own: basic, token, bearer, or a function of the request that may fetch them.
///
/// ```swift
/// builder.use(Authorization.Handler(.basic(login: "ada", password: "s3cret")))
/// builder.use(Authorization.Handler(.bearer(apiToken)))
/// builder.use(Authorization.Handler(.custom { request in
///     request.headers.bearer(try await keychain.token(for: request.url.host))
/// }))
/// ```
///
/// A request that sets its own header (`request.headers.bearer(…)`) keeps it: the connection's
/// credentials are the default, a request's are the override. Credentials go only to the
/// connection's origin and the origins listed in ``RequestOptions/credentialOrigins``: a URL a
/// server supplied (a HAL link, a page's `next`) to another host, or to `http:` from `https:`,
/// gets none; below ``FollowRedirects``, neither does a redirect that leaves the origin
/// (``Env/mayCarryCredentials``).
public struct Authorization: Middleware {
    /// The app below.
    public let app: any App
    /// The handler's settings.
    public let handler: Handler

    /// Builds ``Authorization``.
    public struct Handler: Faraday.Handler {
        /// What adds the credentials.
        public var provider: AuthenticationProvider

        /// Creates the handler.
        public init(_ provider: AuthenticationProvider) {
            self.provider = provider
        }

        public func build(app: any App) -> any Middleware { Authorization(app: app, handler: self) }
    }

    public func onRequest(_ env: inout Env) async throws {
        guard !env.request.headers.contains(.authorization), env.mayCarryCredentials else { return }
        try await handler.provider.authenticate(&env.request)
    }
}
