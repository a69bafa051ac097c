import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Follows 301, 302, 303, 307 and 308 redirects, as browsers and RFC 9110 do, and keeps the
/// chain on the response (``Env/redirects``).
///
/// ```swift
/// builder.use(FollowRedirects.Handler(limit: 5))
/// builder.use(Cookies.Handler(jar: jar))   // below: every hop's cookies reach the jar
/// ```
///
/// - 303 becomes GET (HEAD stays HEAD) without a body; 301 and 302 turn POST into GET unless
///   ``Handler/standardsCompliant``; 307 and 308 keep the method and the body, which must be
///   replayable.
/// - `Location` may be absolute, relative or scheme-relative (`//host/path`).
/// - `Authorization`, `Cookie` and `Proxy-Authorization` are removed when the scheme, host or
///   port changes, and after any scheme-relative `Location`.
/// - HTTPS to HTTP is refused (``FaradayError/Code/insecureRedirect``) unless allowed; a URL
///   visited twice is a loop (``FaradayError/Code/redirectLoop``); more than ``Handler/limit``
///   redirects is ``FaradayError/Code/tooManyRedirects``, whose message lists the chain.
/// - Each intermediate response is closed before the next request.
public struct FollowRedirects: Middleware {
    /// The app below.
    public let app: any App
    /// The handler's settings.
    public let handler: Handler

    /// One redirect that was followed.
    public struct Redirect: Sendable, Hashable {
        /// The redirect status.
        public var status: Int
        /// The URL that answered with the redirect.
        public var from: URL
        /// The URL it led to.
        public var to: URL
        /// The method of the next request.
        public var method: HTTPRequest.Method
    }

    /// Builds ``FollowRedirects``.
    public struct Handler: Faraday.Handler {
        /// The most redirects followed in one call.
        public var limit: Int
        /// Keep POST on 301 and 302 (RFC 9110) instead of switching to GET (what browsers do).
        public var standardsCompliant: Bool
        /// Follow redirects from HTTPS to plain HTTP.
        public var allowsInsecureRedirects: Bool
        /// The headers removed when a redirect leaves the origin: by default every credential
        /// header ``Redaction/credentialHeaders`` names (`Authorization`, `Cookie`, `X-Api-Key`…).
        public var sensitiveHeaders: [HTTPField.Name]
        /// Called for each redirect followed.
        public var onRedirect: (@Sendable (Redirect) -> Void)?

        /// Creates the handler.
        public init(
            limit: Int = 5,
            standardsCompliant: Bool = false,
            allowsInsecureRedirects: Bool = false,
            sensitiveHeaders: [HTTPField.Name] = Redaction.credentialHeaders.compactMap { HTTPField.Name($0) },
            onRedirect: (@Sendable (Redirect) -> Void)? = nil
        ) {
            self.limit = limit
            self.standardsCompliant = standardsCompliant
            self.allowsInsecureRedirects = allowsInsecureRedirects
            self.sensitiveHeaders = sensitiveHeaders
            self.onRedirect = onRedirect
        }

        public func build(app: any App) -> any Middleware { FollowRedirects(app: app, handler: self) }
    }

    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    public func call(_ env: Env) async throws(FaradayError) -> Completions {
        var request = env.request
        var history: [Redirect] = []
        var visited: Set<String> = [Self.visitKey(request)]
        // Once a redirect has left the origin, credentials stay off for the rest of the chain.
        var hasLeftOrigin = false
        while true {
            var attempt = env.forAttempt()
            attempt.request = request
            attempt[CrossOriginKey.self] = hasLeftOrigin
            if !history.isEmpty { attempt[RedirectsKey.self] = history }
            let completions = try await app.call(attempt)
            guard let status = completions.head.status?.code, Self.redirectStatuses.contains(status),
                let location = completions.head.response?.headers[.location]
            else {
                completions.head[RedirectsKey.self] = history
                return completions
            }
            completions.discard()
            let next = try nextRequest(after: request, status: status, location: location, history: history)
            if Self.leavesOrigin(location, from: request.url, to: next.url) { hasLeftOrigin = true }
            history.append(Redirect(status: status, from: request.url, to: next.url, method: next.method))
            guard history.count <= handler.limit else {
                throw FaradayError(
                    .tooManyRedirects,
                    "More than \(handler.limit) redirects: \(Self.describe(history)).",
                    method: env.request.method,
                    url: env.request.url,
                    response: completions.head.response
                )
            }
            guard visited.insert(Self.visitKey(next)).inserted else {
                throw FaradayError(
                    .redirectLoop,
                    "The redirects loop: \(Self.describe(history)).",
                    method: env.request.method,
                    url: env.request.url,
                    response: completions.head.response
                )
            }
            if let redirect = history.last {
                handler.onRedirect?(redirect)
                env.events?.emit { $0.redirected($1, to: redirect) }
            }
            request = next
        }
    }

    /// The request a redirect asks for.
    private func nextRequest(
        after request: Request,
        status: Int,
        location: String,
        history: [Redirect]
    ) throws(FaradayError) -> Request {
        guard let target = URL(string: location, relativeTo: request.url)?.absoluteURL,
            let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https", target.host != nil
        else {
            throw FaradayError(
                .invalidResponse,
                "The redirect's Location \(Redaction().redacting(urlText: location).debugDescription) is not an http(s) URL.",
                method: request.method,
                url: request.url
            )
        }
        if let problem = HostCheck.problem(with: target) {
            throw FaradayError(
                .invalidURL,
                "The redirect's Location was not followed: \(problem)",
                method: request.method,
                url: request.url
            )
        }
        if request.url.scheme?.lowercased() == "https" && scheme == "http" && !handler.allowsInsecureRedirects {
            throw FaradayError(
                .insecureRedirect,
                "Refusing to follow a redirect from HTTPS to \(Redaction().redacting(target)).",
                method: request.method,
                url: request.url
            )
        }
        var next = request
        next.url = target
        let becomesGet =
            status == 303
            || (!handler.standardsCompliant && (status == 301 || status == 302) && request.method == .post)
        if becomesGet {
            next.method = request.method == .head ? .head : .get
            next.body = .empty
            next.headers[.contentType] = nil
            next.headers[.contentLength] = nil
        } else if !next.body.isEmpty && !next.body.isReplayable {
            throw FaradayError(
                .bodyNotReplayable,
                "A \(status) redirect asks to send the body again, but it is a one-shot stream.",
                method: request.method,
                url: request.url
            )
        }
        if Self.leavesOrigin(location, from: request.url, to: target) {
            for name in handler.sensitiveHeaders { next.headers[name] = nil }
        }
        return next
    }

    /// A scheme-relative `Location` (`//host/…`) counts as leaving, whatever host it names.
    private static func leavesOrigin(_ location: String, from: URL, to: URL) -> Bool {
        location.hasPrefix("//") || !sameOrigin(from, to)
    }

    private static func sameOrigin(_ lhs: URL, _ rhs: URL) -> Bool {
        guard let lhs = Origin(lhs) else { return false }
        return lhs == Origin(rhs)
    }

    private static func visitKey(_ request: Request) -> String {
        "\(request.method.rawValue) \(request.url.absoluteString)"
    }

    /// The chain for an error message, URLs shown as the logs show them (no credentials).
    private static func describe(_ history: [Redirect]) -> String {
        let redaction = Redaction()
        let start = history.first.map { redaction.redacting($0.from) } ?? ""
        return ([start] + history.map { "\($0.status) → \(redaction.redacting($0.to))" }).joined(separator: " ")
    }
}

/// Where ``FollowRedirects`` puts the chain.
enum RedirectsKey: EnvKey { typealias Value = [FollowRedirects.Redirect] }

/// Where ``FollowRedirects`` marks a request that a redirect took to another origin.
enum CrossOriginKey: EnvKey { typealias Value = Bool }

extension Env {
    /// The redirects ``FollowRedirects`` followed, first to last: on a response, those that led
    /// to it; on a request below the `FollowRedirects`, those that led to this request (its hop).
    public var redirects: [FollowRedirects.Redirect] { self[RedirectsKey.self] ?? [] }

    /// Whether ``FollowRedirects`` sent this request to another origin (scheme, host or port)
    /// than the call's first request. Middleware that add credentials below `FollowRedirects`
    /// (``Authorization``, ``TokenRefresh``) add none to such a request.
    public var isCrossOriginRedirect: Bool { self[CrossOriginKey.self] ?? false }
}

extension FollowRedirects.Redirect: CustomReflectable {
    /// The hop with both URLs redacted, for `print` and `dump`.
    public var customMirror: Mirror {
        let redaction = Redaction()
        return Mirror(
            self,
            children: [
                "status": status, "from": redaction.redacting(from), "to": redaction.redacting(to), "method": method,
            ],
            displayStyle: .struct
        )
    }
}
