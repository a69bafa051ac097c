extension Env {
    /// Whether credential middleware may add its credential: the request goes to one of its
    /// ``RequestOptions/credentialOrigins`` and is not a redirect that left its origin
    /// (``isCrossOriginRedirect``). ``Authorization`` and ``TokenRefresh`` ask it; a middleware
    /// of your own that adds credentials should too.
    public var mayCarryCredentials: Bool { !isCrossOriginRedirect && request.isToCredentialOrigin }
}
