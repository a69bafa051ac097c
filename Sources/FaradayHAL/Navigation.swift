import Faraday
import Foundation

extension Representation {
    /// Fetches the resource `relation` links to, through `connection`.
    ///
    /// ```swift
    /// let orders = try await root.follow("shop:orders", on: connection)
    /// let found = try await root.follow("shop:search", with: ["q": "tea"], on: connection)
    /// ```
    ///
    /// A templated link is expanded with `variables`; a relative `href` resolves against this
    /// representation's ``url``, else against the connection's base URL. The first link of the
    /// relation is followed, or the one named `name`. A relation the document does not have fails
    /// with `FaradayError.Code.relationNotFound` naming the ones it has; a 4xx or 5xx answer
    /// fails with its status error; an answer that is not HAL fails with
    /// `FaradayError.Code.parsingFailed`.
    public func follow(
        _ relation: String,
        with variables: [String: URITemplate.Value] = [:],
        name: String? = nil,
        on connection: Connection
    ) async throws(FaradayError) -> Representation {
        guard let link = link(relation, name: name) else {
            let which = name.map { " named \"\($0)\"" } ?? ""
            throw FaradayError(
                .relationNotFound,
                "The representation has no link \"\(relation)\"\(which); it has: \(relations.joined(separator: ", "))."
            )
        }
        return try await connection.representation(at: resolve(try link.expand(variables)), linkedFrom: self)
    }

    /// Walks a path of relations separated by `/` (`"shop:catalog/shop:books"`), taking an
    /// embedded resource where there is one and following a link where there is not.
    public func follow(path: String, on connection: Connection) async throws(FaradayError) -> Representation {
        var current = self
        for relation in path.split(separator: "/").map(String.init) {
            if let embedded = current.embedded(relation).first {
                current = embedded
            } else {
                current = try await current.follow(relation, on: connection)
            }
        }
        return current
    }

    /// The resources embedded along a path of relations (`"shop:order/shop:item"`): every item
    /// of every order, say, in document order. A relation missing at any level fails with
    /// `FaradayError.Code.relationNotFound`.
    public func results(_ path: String) throws(FaradayError) -> [Representation] {
        var level = [self]
        for relation in path.split(separator: "/").map(String.init) {
            guard level.isEmpty || level.contains(where: { !$0.embedded(relation).isEmpty }) else {
                let available = Set(level.flatMap { $0.embedded.keys }).sorted()
                throw FaradayError(
                    .relationNotFound,
                    "No resource embeds \"\(relation)\"; embedded relations there: \(available.joined(separator: ", "))."
                )
            }
            level = level.flatMap { $0.embedded(relation) }
        }
        return level
    }

    /// The pages of a paginated collection, starting with this one and following `relation`
    /// (`next` by default) until a page has none.
    ///
    /// ```swift
    /// for try await page in firstPage.pages(on: connection) {
    ///     orders += page.embedded("shop:order")
    /// }
    /// ```
    ///
    /// Pages are fetched one at a time as the loop asks for them. A `next` link back to a page
    /// already seen fails with `FaradayError.Code.invalidResponse` instead of looping forever.
    public func pages(following relation: String = "next", on connection: Connection) -> Pages {
        Pages(first: self, relation: relation, connection: connection)
    }

    /// `href` as an absolute URL string when this representation knows where it came from.
    func resolve(_ href: String) -> String {
        guard let url, let resolved = URL(string: href, relativeTo: url) else { return href }
        return resolved.absoluteString
    }
}

extension Representation {
    /// The pages of a paginated collection, as an `AsyncSequence`.
    public struct Pages: AsyncSequence, Sendable {
        let first: Representation
        let relation: String
        let connection: Connection

        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(pending: .page(first), relation: relation, connection: connection)
        }

        /// Fetches the next page when asked.
        public struct AsyncIterator: AsyncIteratorProtocol {
            /// Every failure is a `FaradayError`.
            public typealias Failure = FaradayError

            enum Pending {
                case page(Representation)
                case link(String, from: Representation)
                case finished
            }

            var pending: Pending
            let relation: String
            let connection: Connection
            var visited: Set<String> = []

            /// The next page; `nil` after the page without the link.
            public mutating func next() async throws(FaradayError) -> Representation? {
                let page: Representation
                switch pending {
                case .finished:
                    return nil
                case .page(let first):
                    page = first
                case .link(let href, let previous):
                    pending = .finished
                    page = try await connection.representation(at: href, linkedFrom: previous)
                }
                if let own = page.selfLink?.href { visited.insert(page.resolve(own)) }
                if let url = page.url { visited.insert(url.absoluteString) }
                guard let next = page.link(relation) else {
                    pending = .finished
                    return page
                }
                let href = page.resolve(next.href)
                guard !visited.contains(href) else {
                    throw FaradayError(
                        .invalidResponse,
                        "The \"\(relation)\" link of a page leads back to \(Redaction().redacting(urlText: href)), already seen."
                    )
                }
                pending = .link(href, from: page)
                return page
            }
        }
    }
}

extension Connection {
    /// GETs `target` and reads the answer as HAL: the representation ``DecodeHAL`` read, or the
    /// body read here when the stack has no ``DecodeHAL``.
    ///
    /// A link of an `https` document to an `http` URL fails with `insecureRedirect`.
    ///
    /// A link is the server's word, so the request carries credentials only to the origins the
    /// call that read `document` could send them to: the connection's, or, on a connection
    /// without a base URL that lists none, the origin the first document was asked from. Trust
    /// never moves to an origin a document names.
    func representation(
        at target: String,
        linkedFrom document: Representation
    ) async throws(FaradayError) -> Representation {
        // As a redirect or a `next` page: a link never takes the client from HTTPS to HTTP.
        if document.url?.scheme?.lowercased() == "https", URL(string: target)?.scheme?.lowercased() == "http" {
            throw FaradayError(
                .insecureRedirect,
                "Refusing to follow a link of an HTTPS document to \(Redaction().redacting(urlText: target))."
            )
        }
        let env = try await get(target) { request in
            request.headers.accepts(contentTypes: [HAL.mediaType])
            if request.options.credentialOrigins.isEmpty {
                request.options.credentialOrigins =
                    document.credentialOrigins.isEmpty
                    ? document.url.flatMap(Origin.init).map { ["\($0)"] } ?? [] : document.credentialOrigins
            }
        }.value
        if let error = FaradayError.statusError(for: env) { throw error }
        if let representation = env.representation { return representation }
        return try Representation(reading: env)
    }
}

extension Response {
    /// The response read as HAL: waits for the final completion and returns what ``DecodeHAL``
    /// read, or throws `FaradayError.Code.parsingFailed` when the response held no HAL.
    public var representation: Representation {
        get async throws(FaradayError) {
            let env = try await value
            guard let representation = env.representation else {
                throw FaradayError(
                    .parsingFailed,
                    "The response holds no HAL document (content type \(env.response?.headers.contentType ?? "none")).",
                    method: env.request.method,
                    url: env.request.url,
                    response: env.response
                )
            }
            return representation
        }
    }
}
