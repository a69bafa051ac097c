import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The pages of a collection that links to its next page with a `Link` header (RFC 8288), as
/// GitHub and GitLab do: each element is a page's final env, until a page has no `next` link.
///
/// ```swift
/// for try await page in connection.pages("repos/swiftlang/swift/issues", params: ["per_page": "100"]) {
///     let issues = try page.decode([Issue].self)   // or `api.pages(of: endpoint)`, decoded
/// }
/// ```
///
/// A `next` link is the server's word, so credentials follow it only where they were first sent,
/// as ``FollowRedirects`` holds for a `Location`:
/// - the connection's credentials (default headers and parameters, ``Authorization``, an
///   endpoint's authentication) under the connection's rule (``RequestOptions/credentialOrigins``;
///   on a connection without a base URL, the origin of the first request);
/// - the call's own credential headers (`Authorization`, `Cookie`, `Proxy-Authorization`, an
///   endpoint's `X-Api-Key` and every name ``Redaction/credentialHeaders`` lists) only to the
///   origin of the first page: a page on another origin gets none of them.
///
/// A link from an `https` page to an `http` URL fails with
/// ``FaradayError/Code/insecureRedirect``, and a link back to a page already seen with
/// ``FaradayError/Code/invalidResponse``, rather than loop.
public struct LinkPages: AsyncSequence, Sendable {
    /// A page's final env.
    public typealias Element = Env
    /// Every failure is a ``FaradayError``.
    public typealias Failure = FaradayError

    let first: @Sendable () async throws(FaradayError) -> Response
    let follow: @Sendable (URL, Credentials) async throws(FaradayError) -> Response
    let relation: String

    /// Where a followed page's credentials may go.
    struct Credentials {
        /// The credential origins of the first page's request, for the connection's credentials.
        let origins: [String]
        /// Whether the page is on the first page's origin, where the call's own credentials went.
        let keepsCallCredentials: Bool
    }

    /// Starts from the response `first` makes; each following page is the response `follow`
    /// makes for a link's target, told where its credentials may go.
    init(
        relation: String,
        first: @escaping @Sendable () async throws(FaradayError) -> Response,
        follow: @escaping @Sendable (URL, Credentials) async throws(FaradayError) -> Response
    ) {
        self.relation = relation
        self.first = first
        self.follow = follow
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(pages: self) }

    /// Fetches one page at a time, as the loop asks.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// Every failure is a ``FaradayError``.
        public typealias Failure = FaradayError

        let pages: LinkPages
        private var next: URL?
        private var started = false
        private var origins: [String] = []
        private var firstOrigin: Origin?
        private var visited: Set<String> = []

        init(pages: LinkPages) { self.pages = pages }

        /// The next page's final env; `nil` after the page without the link.
        public mutating func next() async throws(FaradayError) -> Env? {
            let response: Response
            let isFirst = !started
            if isFirst {
                started = true
                response = try await pages.first()
            } else if let target = next {
                // An origin that cannot be told (no host, an unknown scheme's port) is another one.
                let sameOrigin = firstOrigin != nil && Origin(target) == firstOrigin
                let credentials = Credentials(origins: origins, keepsCallCredentials: sameOrigin)
                response = try await pages.follow(target, credentials)
            } else {
                return nil
            }
            let env = try await response.value
            if isFirst {
                firstOrigin = Origin(env.redirects.first?.from ?? env.request.url)
                origins = env.request.options.credentialOrigins
                if origins.isEmpty, let firstOrigin { origins = ["\(firstOrigin)"] }
            }
            visited.insert(env.request.url.absoluteString)
            next = env.link(pages.relation)
            guard let target = next else { return env }
            if visited.contains(target.absoluteString) {
                throw FaradayError(
                    .invalidResponse,
                    "The \"\(pages.relation)\" link of a page leads back to \(Redaction().redacting(target)), already seen.",
                    method: env.request.method,
                    url: env.request.url
                )
            }
            if env.request.url.scheme?.lowercased() == "https", target.scheme?.lowercased() != "https" {
                throw FaradayError(
                    .insecureRedirect,
                    "Refusing to follow the \"\(pages.relation)\" link of an HTTPS page to \(Redaction().redacting(target)).",
                    method: env.request.method,
                    url: env.request.url
                )
            }
            return env
        }
    }
}

extension Connection {
    /// The pages of a collection that links to its next page with a `Link` header: GET `path`,
    /// then each page's `rel="next"` (or `relation`) until there is none. See ``LinkPages``.
    public func pages(
        _ path: String = "",
        params: Params = Params(),
        headers: HTTPFields = HTTPFields(),
        relation: String = "next"
    ) -> LinkPages {
        LinkPages(relation: relation) { [self] () throws(FaradayError) in
            get(path, params: params, headers: headers)
        } follow: { [self] target, credentials throws(FaradayError) in
            let headers = credentials.keepsCallCredentials ? headers : headers.withoutCredentials
            return get(target.absoluteString, headers: headers) { request in
                if request.options.credentialOrigins.isEmpty { request.options.credentialOrigins = credentials.origins }
            }
        }
    }
}

extension API {
    /// The pages of an endpoint's collection, each decoded by the endpoint's decoder: the
    /// endpoint, then each page's `rel="next"` (or `relation`) link, with the endpoint's headers,
    /// authentication and decoder (its query and parameter sets are in the link already). Status
    /// errors fail as ``send(_:)`` fails them. See ``LinkPages`` for the credential rule.
    public func pages<Resource>(
        of endpoint: Endpoint<Resource>,
        relation: String = "next"
    ) -> DecodedPages<Resource> {
        let pages = LinkPages(relation: relation) { [self] () throws(FaradayError) in
            try await response(for: endpoint)
        } follow: { [self] target, credentials throws(FaradayError) in
            var next = endpoint
            next.path = target.absoluteString
            next.query = Params()
            next.parameters = []
            if !credentials.keepsCallCredentials { next.headers = next.headers.withoutCredentials }
            let configure = endpoint.configure
            next.configure = { request in
                try configure?(&request)
                // What `configure` added counts as the call's own too.
                if !credentials.keepsCallCredentials { request.headers = request.headers.withoutCredentials }
                if request.options.credentialOrigins.isEmpty { request.options.credentialOrigins = credentials.origins }
            }
            return try await response(for: next)
        }
        let validatesStatus = validatesStatus
        return DecodedPages(pages: pages) { env throws(FaradayError) in
            if validatesStatus, let error = FaradayError.statusError(for: env) { throw error }
            return try endpoint.decoder.decode(env)
        }
    }
}

/// The pages of ``API/pages(of:relation:)``, each decoded by the endpoint's decoder.
public struct DecodedPages<Resource>: AsyncSequence, Sendable {
    /// A decoded page.
    public typealias Element = Resource
    /// Every failure is a ``FaradayError``.
    public typealias Failure = FaradayError

    let pages: LinkPages
    let decode: @Sendable (Env) throws(FaradayError) -> Resource

    /// Makes an iterator; each one fetches the pages from the first.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(pages: pages.makeAsyncIterator(), decode: decode)
    }

    /// Fetches and decodes one page at a time, as the loop asks.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// Every failure is a ``FaradayError``.
        public typealias Failure = FaradayError

        var pages: LinkPages.AsyncIterator
        let decode: @Sendable (Env) throws(FaradayError) -> Resource

        /// The next page, decoded; `nil` after the page without the link.
        public mutating func next() async throws(FaradayError) -> Resource? {
            guard let env = try await pages.next() else { return nil }
            return try decode(env)
        }
    }
}
