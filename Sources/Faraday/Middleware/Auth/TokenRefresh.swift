/// Sends a bearer token from a ``CredentialStore``, refreshing it before use when it is due and
/// once after a `401 Unauthorized`, then retrying the request with the new token (Alamofire's
/// `AuthenticationInterceptor`).
///
/// ```swift
/// let store = CredentialStore(credential: saved) { old in try await renew(old) }
/// let connection = try Connection(url: "https://api.example.com") { builder in
///     builder.use(TokenRefresh.Handler(store: store))
///     builder.adapter = URLSessionAdapter()
/// }
/// ```
///
/// Requests that carry their own `Authorization` header, and requests sent by the store's
/// refresh function, pass through untouched. A request whose body cannot be replayed is not
/// retried: its `401` comes back as it is. A refresh that fails fails every request waiting for
/// it with that error. ``Connection/reset()`` forgets the credential.
public struct TokenRefresh: Middleware {
    /// The app below.
    public let app: any App
    /// The handler's settings.
    public let handler: Handler

    /// `true` inside a refresh function, so that its own requests are not held up.
    @TaskLocal static var isRefreshing = false

    /// Builds ``TokenRefresh``.
    public struct Handler: Faraday.Handler {
        /// Where the credential lives.
        public var store: CredentialStore
        /// Puts a credential in a request; by default `Authorization: Bearer <accessToken>`.
        public var apply: @Sendable (OAuthCredential, inout Request) -> Void
        /// Whether a response says the credential was rejected; by default status 401.
        public var isRejection: @Sendable (Env) -> Bool

        /// Creates the handler.
        public init(
            store: CredentialStore,
            apply: @escaping @Sendable (OAuthCredential, inout Request) -> Void = { $1.headers.bearer($0.accessToken) },
            isRejection: @escaping @Sendable (Env) -> Bool = { $0.status?.code == 401 }
        ) {
            self.store = store
            self.apply = apply
            self.isRejection = isRejection
        }

        public func build(app: any App) -> any Middleware { TokenRefresh(app: app, handler: self) }

        /// Forgets the store's credential.
        public func reset() { store.reset() }
    }

    public func call(_ env: Env) async throws(FaradayError) -> Completions {
        guard !Self.isRefreshing, !env.request.headers.contains(.authorization), env.mayCarryCredentials else {
            return try await app.call(env)
        }
        let credential = try await handler.store.validCredential()
        var attempt = env.forAttempt()
        handler.apply(credential, &attempt.request)
        let first = try await app.call(attempt)
        guard handler.isRejection(first.head), env.request.body.isReplayable else { return first }
        first.discard()
        var retry = env
        handler.apply(try await handler.store.credential(replacing: credential), &retry.request)
        return try await app.call(retry)
    }
}
