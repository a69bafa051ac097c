#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads one `Set-Cookie` header and decides what the jar does with it (RFC 6265 §5.2 and
/// §5.3, with the stricter rules of RFC 6265bis for `Secure` and cookie-name prefixes).
enum SetCookie {
    /// What a `Set-Cookie` header asks of the jar.
    enum Outcome: Equatable {
        /// Store (or replace) the cookie.
        case store(Cookie)
        /// Remove the cookie with this name, domain and path (it expired).
        case delete(Cookie)
        /// Ignore the header; the reason is for logs and tests.
        case ignore(String)
    }

    /// The longest lifetime granted, as RFC 6265bis caps it: 400 days.
    static let maximumLifetime: TimeInterval = 400 * 24 * 60 * 60
    /// The largest name plus value accepted.
    static let maximumSize = 4096

    /// Splits `Set-Cookie` headers that Foundation joined with commas back into one a cookie,
    /// leaving the commas of `Expires` dates alone: a piece starts a new cookie only when it
    /// begins with `name=`.
    static func split(combined value: String) -> [String] {
        var cookies: [String] = []
        for piece in value.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = piece.drop { $0 == " " || $0 == "\t" }
            let name = trimmed.prefix { $0 != "=" }
            let startsCookie =
                name.count < trimmed.count && !name.isEmpty && !name.contains { $0 == ";" || $0.isWhitespace }
            if startsCookie || cookies.isEmpty {
                cookies.append(String(trimmed))
            } else {
                cookies[cookies.count - 1] += "," + piece
            }
        }
        return cookies
    }

    /// What the jar does with `header`, from a response to a request to `origin`.
    static func parse(
        _ header: String,
        from origin: CookieRules.Target,
        now: Date,
        suffixes: PublicSuffixList
    ) -> Outcome {
        // Cut on the bytes: header syntax is ASCII, and Character-wise splitting is slow.
        var pieces = Pieces(header)
        guard let pair = pieces.next(), let equals = pair.utf8.firstIndex(of: UInt8(ascii: "=")) else {
            return .ignore("no name=value pair")
        }
        let name = String(pair[..<equals].trimmingHTTPWhitespace)
        let value = String(pair[pair.utf8.index(after: equals)...].trimmingHTTPWhitespace)
        guard !name.isEmpty else { return .ignore("empty name") }
        guard name.utf8.count + value.utf8.count <= maximumSize else {
            return .ignore("larger than \(maximumSize) bytes")
        }
        let isControl = { (byte: UInt8) in byte < 0x20 && byte != UInt8(ascii: "\t") || byte == 0x7F }
        guard !name.utf8.contains(where: isControl), !value.utf8.contains(where: isControl) else {
            return .ignore("control characters")
        }
        let host = origin.host
        let isSecureOrigin = origin.isSecure

        var attributes = Attributes()
        while let piece = pieces.next() { attributes.read(piece, now: now) }

        var cookie = Cookie(
            name: name,
            value: value,
            domain: host,
            isHostOnly: true,
            path: attributes.path ?? CookieRules.defaultPath(forRequestPath: origin.path),
            expiresAt: attributes.maxAge ?? attributes.expires,
            isSecure: attributes.isSecure,
            isHTTPOnly: attributes.isHTTPOnly,
            sameSite: attributes.sameSite,
            createdAt: now
        )
        if let expiresAt = cookie.expiresAt, expiresAt.timeIntervalSince(now) > maximumLifetime {
            cookie.expiresAt = now.addingTimeInterval(maximumLifetime)
        }

        if var domain = attributes.domain {
            if suffixes.isPublicSuffix(domain) {
                guard domain == host else { return .ignore("domain \(domain) is a public suffix") }
                domain = host  // a public suffix may set a host-only cookie for itself
            } else {
                guard CookieRules.domainMatches(host, domain) else {
                    return .ignore("domain \(domain) does not match host \(host)")
                }
                cookie.isHostOnly = false
            }
            cookie.domain = domain
        }
        if cookie.isSecure && !isSecureOrigin { return .ignore("a Secure cookie from an insecure origin") }
        // rfc6265bis §5.7 step 20: the prefixes match whatever their case (`__HOST-` too), as
        // browsers and curl 7.87 hold, so a server cannot slip a host cookie past the rule.
        let prefix = name.prefix(9).lowercasedASCII
        if prefix == "__secure-" && !(cookie.isSecure && isSecureOrigin) {
            return .ignore("__Secure- prefix without Secure")
        }
        if prefix.hasPrefix("__host-")
            && !(cookie.isSecure && isSecureOrigin && cookie.isHostOnly && cookie.path == "/")
        {
            return .ignore("__Host- prefix rules")
        }
        return cookie.isExpired(at: now) ? .delete(cookie) : .store(cookie)
    }

    /// The attributes of one header; the last of each kind wins.
    private struct Attributes {
        var expires: Date?
        var maxAge: Date?
        var domain: String?
        var path: String?
        var isSecure = false
        var isHTTPOnly = false
        var sameSite: Cookie.SameSite?

        mutating func read(_ piece: Substring, now: Date) {
            let equals = piece.utf8.firstIndex(of: UInt8(ascii: "="))
            let key = piece[..<(equals ?? piece.endIndex)].trimmingHTTPWhitespace.lowercasedASCII
            let value = equals.map { String(piece[piece.utf8.index(after: $0)...].trimmingHTTPWhitespace) } ?? ""
            switch key {
            case "expires":
                if let date = HTTPDate.parseCookieDate(value) { expires = date }
            case "max-age":
                // Digits, optionally after a minus; anything else leaves the attribute out.
                let digits = value.hasPrefix("-") ? value.dropFirst() : Substring(value)
                guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return }
                let seconds =
                    value.hasPrefix("-")
                    ? 0 : min(Double(digits) ?? SetCookie.maximumLifetime, SetCookie.maximumLifetime)
                maxAge = seconds <= 0 ? Date.distantPast : now.addingTimeInterval(seconds)
            case "domain":
                // `.example.com` is `example.com`; then the canonical form (`公司.cn` is
                // `xn--55qx5d.cn`) before the public-suffix check. A trailing dot stays: hosts are
                // canonical, the attribute is not (RFC 6265 §5.1.3), so `home.example.org.` matches
                // no host and the cookie is ignored (http-state DOMAIN0014). A name with an empty
                // label stays as it is and is refused there.
                let domain = value.hasPrefix(".") ? String(value.dropFirst()) : value
                guard !domain.isEmpty else { return }
                self.domain =
                    domain.hasSuffix(".")
                    ? domain.lowercasedCheaply : DomainName.canonical(domain) ?? domain.lowercasedCheaply
            case "path":
                path = value.hasPrefix("/") ? value : nil
            case "secure": isSecure = true
            case "httponly": isHTTPOnly = true
            case "samesite": sameSite = Cookie.SameSite(parsing: value)
            default: break
            }
        }
    }
}

extension SetCookie {
    /// The `;`-separated pieces of a header (empty ones included), found one at a time, so that
    /// parsing a header makes no array of them.
    struct Pieces: IteratorProtocol {
        private let text: Substring
        private var start: String.Index?

        init(_ header: String) {
            (text, start) = (Substring(header), header.startIndex)
        }

        mutating func next() -> Substring? {
            guard let from = start else { return nil }
            let end = text.utf8[from...].firstIndex(of: UInt8(ascii: ";"))
            start = end.map { text.utf8.index(after: $0) }
            return text[from..<(end ?? text.endIndex)]
        }
    }
}
