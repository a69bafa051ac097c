import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A request matcher and the answer of a ``TestAdapter`` stub.
public struct Stub: Sendable, CustomStringConvertible {
    /// What the stub matches in the request's path.
    public struct Target: Sendable, CustomStringConvertible {
        enum Kind: Sendable {
            case path(String)
            case url(host: String, port: Int?, scheme: String?, path: String)
            case regex(String)
        }
        let kind: Kind

        /// A path (`/users/1`), compared with the request's path; or a full URL, which also
        /// compares scheme, host and port.
        public static func path(_ pathOrURL: String) -> Target {
            if let url = URL(string: pathOrURL), let host = url.host {
                return Target(
                    kind: .url(host: host, port: url.port, scheme: url.scheme, path: url.path.isEmpty ? "/" : url.path)
                )
            }
            return Target(kind: .path(pathOrURL))
        }

        /// A regular expression matched against the whole path; its captures reach the responder.
        public static func regex(_ pattern: String) -> Target { Target(kind: .regex(pattern)) }

        public var description: String {
            switch kind {
            case .path(let path): path
            case .url(let host, let port, let scheme, let path):
                "\(scheme.map { "\($0)://" } ?? "//")\(host)\(port.map { ":\($0)" } ?? "")\(path)"
            case .regex(let pattern): "/\(pattern)/"
            }
        }

        /// `url`'s path as a stub compares it, as `URL.path` reads it (percent-decoded, without a
        /// trailing `/`), and `/` when empty. `URL.path` decodes and trims on every read, so a path
        /// with nothing to decode or trim is taken as it is.
        static func path(of url: URL) -> String {
            let encoded = url.path(percentEncoded: true)
            let utf8 = encoded.utf8
            let isPlain = !utf8.contains(UInt8(ascii: "%")) && (utf8.count < 2 || utf8.last != UInt8(ascii: "/"))
            let path = isPlain ? encoded : url.path
            return path.isEmpty ? "/" : path
        }

        /// The captures of the match, or `nil` when `url` does not match.
        func match(_ url: URL) -> [String?]? {
            let path = Self.path(of: url)
            switch kind {
            case .path(let expected):
                return path == expected ? [] : nil
            case .url(let host, let port, let scheme, let expected):
                guard url.host == host, path == expected else { return nil }
                if let port, url.port != port { return nil }
                if let scheme, url.scheme != scheme { return nil }
                return []
            case .regex(let pattern):
                guard let regex = try? Regex(pattern), let match = try? regex.wholeMatch(in: path) else { return nil }
                return match.output.dropFirst().map { $0.substring.map(String.init) }
            }
        }
    }

    /// How the stub checks the request body.
    public struct BodyMatcher: Sendable {
        let matches: @Sendable (Data) -> Bool
        let label: String

        /// The body equals `data`.
        public static func equals(_ data: Data) -> BodyMatcher {
            BodyMatcher(matches: { $0 == data }, label: "\(data.count) bytes")
        }
        /// The body is this UTF-8 text.
        public static func equals(_ text: String) -> BodyMatcher {
            BodyMatcher(matches: { $0 == Data(text.utf8) }, label: text.debugDescription)
        }
        /// `predicate` accepts the body.
        public static func matching(_ predicate: @escaping @Sendable (Data) -> Bool) -> BodyMatcher {
            BodyMatcher(matches: predicate, label: "a predicate")
        }
    }

    /// What the responder learns about the match.
    public struct Match: Sendable {
        /// The captures of a regex target (empty for other targets).
        public var captures: [String?]
    }

    /// The method to match.
    public var method: HTTPRequest.Method
    /// The path to match.
    public var target: Target
    /// Query parameters the request must have (a subset, or exactly in strict mode).
    public var query: Params?
    /// Headers the request must have.
    public var headers: HTTPFields
    /// The body the request must have.
    public var body: BodyMatcher?
    /// Produces the response.
    public var respond: @Sendable (Env, Match) async throws -> StubResponse

    public var description: String {
        var text = "\(method.rawValue) \(target)"
        if let query, !query.isEmpty { text += "?" + FlatParamsEncoder().encode(query) }
        if !headers.isEmpty { text += " headers: " + headers.map { "\($0.name)=\($0.value)" }.joined(separator: ", ") }
        if let body { text += " body: \(body.label)" }
        return text
    }

    /// The captures when the stub matches `env`, else how far it got and what differed.
    func evaluate(_ request: Request, body requestBody: Data, strict: Bool) -> Result<Match, Mismatch> {
        guard let captures = target.match(request.url) else { return .failure(Mismatch(.path, "path")) }
        guard request.method == method else {
            return .failure(
                Mismatch(
                    .method,
                    "method: the stub expects \(method.rawValue), the request sent \(request.method.rawValue)"
                )
            )
        }
        if let query {
            let sentQuery = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? ""
            let actual = (try? FlatParamsEncoder().decode(sentQuery)) ?? Params()
            let expected = (try? FlatParamsEncoder().decode(FlatParamsEncoder().encode(query))) ?? query
            let matches =
                strict
                ? Set(actual.entries) == Set(expected.entries)
                : expected.entries.allSatisfy { actual.entries.contains($0) }
            guard matches else {
                let wanted = FlatParamsEncoder().encode(query)
                return .failure(
                    Mismatch(
                        .query,
                        "query: the stub expects \(strict ? "exactly " : "")\(wanted), the request sent \(sentQuery.isEmpty ? "none" : sentQuery)"
                    )
                )
            }
        }
        // A field matches one of the request's values, or all of them joined (`Cookie` values
        // set in one go are kept as separate fields).
        for field in headers
        where !request.headers[values: field.name].contains(field.value) && request.headers[field.name] != field.value {
            let sent = request.headers[field.name].map { "\($0.debugDescription)" } ?? "none"
            return .failure(
                Mismatch(
                    .headers,
                    "header \(field.name): the stub expects \(field.value.debugDescription), the request sent \(sent)"
                )
            )
        }
        if strict {
            let allowed = Set(headers.map(\.name)).union([.userAgent, .contentLength])
            if let extra = request.headers.first(where: { !allowed.contains($0.name) }) {
                return .failure(
                    Mismatch(
                        .headers,
                        "header \(extra.name): the request sent \(extra.value.debugDescription), which strict mode does not allow"
                    )
                )
            }
        }
        if let body, !body.matches(requestBody) {
            let shown = String(decoding: requestBody.prefix(200), as: UTF8.self) + (requestBody.count > 200 ? "…" : "")
            let sent = shown.debugDescription
            return .failure(Mismatch(.body, "body: the stub expects \(body.label), the request sent \(sent)"))
        }
        return .success(Match(captures: captures))
    }

    /// How far a stub got before it failed to match (the closest stubs get furthest), and both
    /// sides of what differed.
    struct Mismatch: Error, CustomStringConvertible {
        enum Stage: Int { case path, method, query, headers, body }
        let stage: Stage
        let description: String

        init(_ stage: Stage, _ description: String) {
            self.stage = stage
            self.description = description
        }

    }
}
