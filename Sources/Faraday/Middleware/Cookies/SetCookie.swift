import Foundation

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
            let startsCookie = name.count < trimmed.count && !name.isEmpty && !name.contains { $0 == ";" || $0.isWhitespace }
            if startsCookie || cookies.isEmpty {
                cookies.append(String(trimmed))
            } else {
                cookies[cookies.count - 1] += "," + piece
            }
        }
        return cookies
    }

    static func parse(_ header: String, from url: URL, now: Date, suffixes: PublicSuffixList) -> Outcome {
        let pieces = header.split(separator: ";", omittingEmptySubsequences: false)
        guard let pair = pieces.first, let equals = pair.firstIndex(of: "=") else { return .ignore("no name=value pair") }
        let name = pair[..<equals].trimmingCharacters(in: .whitespaces)
        let value = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { return .ignore("empty name") }
        guard name.utf8.count + value.utf8.count <= maximumSize else { return .ignore("larger than \(maximumSize) bytes") }
        guard !(name + value).unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F }) else {
            return .ignore("control characters")
        }
        guard let rawHost = url.host?.lowercased(), !rawHost.isEmpty else { return .ignore("no host") }
        let host = rawHost.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        let isSecureOrigin = ["https", "wss"].contains(url.scheme?.lowercased() ?? "")

        var attributes = Attributes()
        for piece in pieces.dropFirst() { attributes.read(piece, now: now) }

        var cookie = Cookie(
            name: name, value: value, domain: host, isHostOnly: true, path: attributes.path ?? CookieRules.defaultPath(of: url),
            expiresAt: attributes.maxAge ?? attributes.expires, isSecure: attributes.isSecure,
            isHTTPOnly: attributes.isHTTPOnly, sameSite: attributes.sameSite, createdAt: now)
        if let expiresAt = cookie.expiresAt, expiresAt.timeIntervalSince(now) > maximumLifetime {
            cookie.expiresAt = now.addingTimeInterval(maximumLifetime)
        }

        if var domain = attributes.domain {
            if suffixes.isPublicSuffix(domain) {
                guard domain == host else { return .ignore("domain \(domain) is a public suffix") }
                domain = host  // a public suffix may set a host-only cookie for itself
            } else {
                guard CookieRules.domainMatches(host, domain) else { return .ignore("domain \(domain) does not match host \(host)") }
                cookie.isHostOnly = false
            }
            cookie.domain = domain
        }
        if cookie.isSecure && !isSecureOrigin { return .ignore("a Secure cookie from an insecure origin") }
        if name.hasPrefix("__Secure-") && !(cookie.isSecure && isSecureOrigin) { return .ignore("__Secure- prefix without Secure") }
        if name.hasPrefix("__Host-") && !(cookie.isSecure && isSecureOrigin && cookie.isHostOnly && cookie.path == "/") {
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
            let parts = piece.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = parts[0].trimmingCharacters(in: .whitespaces).lowercased()
            let value = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
            switch key {
            case "expires":
                if let date = HTTPDate.parse(value) { expires = date }
            case "max-age":
                // Digits, optionally after a minus; anything else leaves the attribute out.
                let digits = value.hasPrefix("-") ? value.dropFirst() : Substring(value)
                guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return }
                let seconds = value.hasPrefix("-") ? 0 : min(Double(digits) ?? SetCookie.maximumLifetime, SetCookie.maximumLifetime)
                maxAge = seconds <= 0 ? Date.distantPast : now.addingTimeInterval(seconds)
            case "domain":
                let domain = value.hasPrefix(".") ? String(value.dropFirst()) : value
                if !domain.isEmpty { self.domain = domain.lowercased() }
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
