#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Pins the certificates of chosen hosts: a connection whose certificates match none of its
/// host's pins fails with ``FaradayError/Code/tlsFailure`` before any request byte is sent.
///
/// ```swift
/// let connection = try Connection(url: "https://api.example.com") { builder in
///     builder.use(CertificatePinning.Handler(PinningPolicy([
///         .pin("example.com", [try .publicKeySHA256("sha256/…")], backup: [try .publicKeySHA256("sha256/…")]),
///     ])))
///     builder.adapter = AsyncHTTPClientAdapter()
/// }
/// ```
///
/// The middleware puts the policy in the request's options (``RequestOptions/pinning``); the
/// adapter enforces it during the TLS handshake, because only the adapter sees the certificates.
/// Pinning fails closed: a pinned request over plain HTTP fails, and an adapter that cannot see
/// the certificates refuses pinned requests with ``FaradayError/Code/unsupportedOption`` instead
/// of sending them unpinned (``URLSessionAdapter`` on Linux). Pins apply on top of the usual
/// certificate verification (see ``TLSOptions``).
public struct CertificatePinning: Middleware {
    /// The app below.
    public let app: any App
    /// The handler's settings.
    public let handler: Handler

    /// Builds ``CertificatePinning``.
    public struct Handler: Faraday.Handler {
        /// The policy requests get.
        public var policy: PinningPolicy

        /// Creates the handler.
        public init(_ policy: PinningPolicy) {
            self.policy = policy
        }

        public func build(app: any App) -> any Middleware { CertificatePinning(app: app, handler: self) }
    }

    public func call(_ env: Env) async throws(FaradayError) -> Completions {
        var env = env
        env.request.options.pinning = handler.policy
        try handler.policy.refusePlainHTTP(env.request)
        return try await app.call(env)
    }
}
