#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A cookie as a ``CookieJar`` stores it (RFC 6265 §5.3).
public struct Cookie: Sendable, Hashable, Codable {
    /// The `SameSite` attribute. An HTTP client has no "site" of its own, so the jar stores it
    /// and reports it but does not restrict sending by it.
    public struct SameSite: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The attribute's value, as the server wrote it.
        public let value: String
        /// `SameSite=Strict`.
        public static let strict = SameSite(value: "Strict")
        /// `SameSite=Lax`.
        public static let lax = SameSite(value: "Lax")
        /// `SameSite=None`.
        public static let none = SameSite(value: "None")

        /// The canonical spelling for the three known values (case-insensitive), else `nil`.
        init?(parsing text: String) {
            switch text.lowercased() {
            case "strict": self = .strict
            case "lax": self = .lax
            case "none": self = .none
            default: return nil
            }
        }

        private init(value: String) { self.value = value }
        public var description: String { value }
    }

    /// The name.
    public var name: String
    /// The value.
    public var value: String
    /// The domain, lowercased, without a leading dot.
    public var domain: String
    /// `true` when the cookie goes back only to exactly ``domain`` (it had no `Domain` attribute).
    public var isHostOnly: Bool
    /// The path it applies to and below.
    public var path: String
    /// When it expires; `nil` for a session cookie.
    public var expiresAt: Date?
    /// `true` when it may only be sent over HTTPS.
    public var isSecure: Bool
    /// `true` when scripts could not read it in a browser (stored and reported only).
    public var isHTTPOnly: Bool
    /// The `SameSite` attribute, if any.
    public var sameSite: SameSite?
    /// When it was first stored; kept when the cookie is replaced.
    public var createdAt: Date

    /// Creates a cookie.
    public init(
        name: String,
        value: String,
        domain: String,
        isHostOnly: Bool = true,
        path: String = "/",
        expiresAt: Date? = nil,
        isSecure: Bool = false,
        isHTTPOnly: Bool = false,
        sameSite: SameSite? = nil,
        createdAt: Date = Date()
    ) {
        self.name = name
        self.value = value
        self.domain = domain.lowercasedCheaply
        self.isHostOnly = isHostOnly
        self.path = path
        self.expiresAt = expiresAt
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.sameSite = sameSite
        self.createdAt = createdAt
    }

    /// `true` for a cookie that lasts past the session (it has an expiry).
    public var isPersistent: Bool { expiresAt != nil }

    /// `true` when it has expired at `now`.
    public func isExpired(at now: Date) -> Bool {
        expiresAt.map { $0 <= now } ?? false
    }

    /// Whether the cookie goes with a request to `url` (RFC 6265 §5.4): domain and path match,
    /// and a secure cookie only over HTTPS (or WSS).
    public func matches(_ url: URL) -> Bool {
        CookieRules.Target(url).map(matches) ?? false
    }

    func matches(_ target: CookieRules.Target) -> Bool {
        if isSecure && !target.isSecure { return false }
        let domainMatches = isHostOnly ? target.host == domain : CookieRules.domainMatches(target.host, domain)
        return domainMatches && CookieRules.pathMatches(target.path, path)
    }

    /// The key a newer cookie replaces an older one by: name, domain and path.
    var identity: Identity { Identity(name: name, domain: domain, path: path) }

    /// Name, domain and path: what makes two cookies the same cookie (RFC 6265 §5.3 step 11).
    struct Identity: Hashable {
        let name: String
        let domain: String
        let path: String
    }
}

/// Matching rules of RFC 6265 §5.1.
enum CookieRules {
    /// What cookie matching needs of a request URL, worked out once per request.
    struct Target: Equatable {
        /// The host, lowercased.
        let host: String
        /// Whether the scheme is `https` or `wss`.
        let isSecure: Bool
        /// The path as sent (see ``requestPath(of:)``).
        let path: String

        init?(_ url: URL) {
            guard let host = CookieRules.host(of: url) else { return nil }
            let scheme = url.scheme?.lowercasedASCII
            self.host = host
            self.isSecure = scheme == "https" || scheme == "wss"
            self.path = CookieRules.requestPath(of: url)
        }

        /// Calls `visit` with the domains whose cookies can match: the host, then (unless it is
        /// an IP address) each domain above it; no list is made.
        func forEachCandidateDomain(_ visit: (String) -> Void) {
            visit(host)
            guard !CookieRules.isIPAddress(host) else { return }
            var rest = Substring(host)
            while let dot = rest.utf8.firstIndex(of: UInt8(ascii: ".")) {
                rest = rest[rest.utf8.index(after: dot)...]
                if !rest.isEmpty { visit(String(rest)) }
            }
        }
    }

    /// The host of `url` as cookies see it: without IPv6 brackets, in the canonical form of
    /// ``DomainName`` (lowercase A-labels, no trailing dot: `bank.com.` is `bank.com`, so that
    /// `com.` is seen as the public suffix it is); `nil` for an empty label (`x.com..`), for which
    /// nothing is stored or sent.
    static func host(of url: URL) -> String? {
        guard var host = url.host else { return nil }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return DomainName.canonical(host)
    }

    /// §5.1.3: `host` is `domain`, or ends with `.domain` and is not an IP address.
    static func domainMatches(_ host: String, _ domain: String) -> Bool {
        if host == domain { return true }
        return host.hasSuffix("." + domain) && !isIPAddress(host)
    }

    /// §5.1.4: the cookie path is the request path, or a prefix of it ending at a `/`.
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return cookiePath.hasSuffix("/") || requestPath.dropFirst(cookiePath.count).hasPrefix("/")
    }

    /// The request's path as sent (percent-encoded, trailing slash kept), `/` when empty.
    static func requestPath(of url: URL) -> String {
        let path = url.path(percentEncoded: true)
        return path.isEmpty ? "/" : path
    }

    /// §5.1.4: the directory of the request path (as ``requestPath(of:)`` writes it), for cookies
    /// without a usable `Path`.
    static func defaultPath(forRequestPath path: String) -> String {
        guard path.hasPrefix("/"), let lastSlash = path.lastIndex(of: "/"), lastSlash != path.startIndex else {
            return "/"
        }
        return String(path[..<lastSlash])
    }

    /// `true` for an IPv4 address (four decimal parts of at most 255) or a (bracketed or bare)
    /// IPv6 address.
    static func isIPAddress(_ host: String) -> Bool {
        if host.utf8.contains(UInt8(ascii: ":")) { return true }
        var dots = 0
        var digits = 0
        var part = 0
        for byte in host.utf8 {
            if byte == UInt8(ascii: ".") {
                guard digits > 0 else { return false }
                (dots, digits, part) = (dots + 1, 0, 0)
                continue
            }
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte), digits < 3 else { return false }
            part = part * 10 + Int(byte - UInt8(ascii: "0"))
            digits += 1
            guard part <= 255 else { return false }
        }
        return dots == 3 && digits > 0
    }
}

extension Cookie: CustomReflectable {
    /// The cookie's attributes with its value hidden, for `print` and `dump`.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "name": name, "value": Redaction.placeholder, "domain": domain, "path": path,
                "isHostOnly": isHostOnly, "expiresAt": expiresAt as Any, "isSecure": isSecure,
                "isHTTPOnly": isHTTPOnly, "sameSite": sameSite as Any, "createdAt": createdAt,
            ],
            displayStyle: .struct
        )
    }
}
