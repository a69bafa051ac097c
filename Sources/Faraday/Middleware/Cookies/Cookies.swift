#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Sends the cookies of a ``CookieJar`` with each request and stores the cookies each response
/// sets: sessions that survive from a login to the next request.
///
/// ```swift
/// let jar = CookieJar()
/// builder.use(Cookies.Handler(jar: jar))
/// ```
///
/// Cookies go after any `Cookie` header the request already has. ``Connection/reset()`` empties
/// the jar, and a response to a call made before the reset does not refill it.
public struct Cookies: Middleware {
    /// The app below.
    public let app: any App
    /// The handler's settings.
    public let handler: Handler

    /// Builds ``Cookies``.
    public struct Handler: Faraday.Handler {
        /// The jar.
        public var jar: CookieJar

        /// Creates the handler.
        public init(jar: CookieJar) {
            self.jar = jar
        }

        public func build(app: any App) -> any Middleware { Cookies(app: app, handler: self) }

        /// Empties the jar.
        public func reset() { jar.reset() }

        /// Above ``FollowRedirects`` it would see only the last response of a chain: the cookies a
        /// redirect sets (a login's `302`) would never reach the jar, nor the next hop.
        public func checkPlacement(in handlers: [any Faraday.Handler], at index: Int) throws(FaradayError) {
            guard handlers[(index + 1)...].contains(where: { $0 is FollowRedirects.Handler }) else { return }
            throw FaradayError(
                .misplacedHandler,
                "Cookies sits above FollowRedirects, so the cookies a redirect sets (a login's 302) would be lost and the next hop sent without its cookies. Put Cookies.Handler below FollowRedirects.Handler."
            )
        }
    }

    /// Sends the jar's cookies for the request's URL, and stores the response's cookies as soon
    /// as the head arrives: those of a response that a layer above discards (a redirect, a
    /// retried attempt) count too.
    public func call(_ env: Env) async throws(FaradayError) -> Completions {
        // The URL taken apart once, for the cookies sent and for those the answer sets. Without a
        // host, there are neither.
        guard let origin = handler.jar.target(of: env.request.url) else { return try await app.call(env) }
        var env = env
        if let header = handler.jar.cookieHeader(for: origin, now: Date()) {
            // Appended as one field after any the request has: reading `headers[.cookie]` joins
            // them with "; ", and adapters send them as one header (RFC 6265 §5.4).
            env.request.headers.append(HTTPField(name: .cookie, value: header))
        }
        // The jar's state as the request leaves: a reset while it is out keeps its answer's cookies
        // out of the jar.
        let generation = handler.jar.generation
        let completions = try await app.call(env)
        let headers = completions.head.responseHeaders.lazy.filter { $0.name == .setCookie }.map(\.value)
        if !headers.isEmpty {
            handler.jar.store(headers, from: origin, now: Date(), generation: generation)
        }
        return completions
    }
}
