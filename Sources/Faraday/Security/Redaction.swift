import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What ``HTTPLogger``, ``Request/curlCommand(redacting:)``, error descriptions and tracing
/// spans hide: header values, query values and body fields whose names match, and a URL's user
/// info, replaced by ``replacement``.
///
/// Names match case-insensitively; a `*` matches any run of characters (`x-api-*`, `*token*`);
/// a bracketed name (`user[password]`) matches by its innermost name as well. The defaults hide
/// credentials, API-key headers, signed-URL signatures and session cookies; add your own names
/// to the lists.
public struct Redaction: Sendable {
    /// The text shown instead of a secret, unless ``replacement`` says otherwise.
    public static let placeholder = "[REDACTED]"

    /// Header names whose values are hidden.
    public var headers: [String]
    /// Query parameter names whose values are hidden.
    public var queryKeys: [String]
    /// JSON and form body fields whose values are hidden, at any depth.
    public var bodyFields: [String]
    /// The text that stands for a hidden value (``placeholder`` by default; tracing uses
    /// OpenTelemetry's `REDACTED`).
    public var replacement: String

    /// Creates a redaction; the defaults hide ``credentialHeaders``, and
    /// ``credentialNames`` as query parameters and body fields.
    public init(
        headers: [String] = Redaction.credentialHeaders,
        queryKeys: [String] = Redaction.credentialNames,
        bodyFields: [String] = Redaction.credentialNames,
        replacement: String = Redaction.placeholder
    ) {
        self.headers = headers
        self.queryKeys = queryKeys
        self.bodyFields = bodyFields
        self.replacement = replacement
    }

    /// Header fields that carry credentials: `Authorization`, cookies, and the API-key and token
    /// headers of common services (`X-Api-Key`, `X-Auth-Token`, `Api-Key`, `Private-Token`…).
    public static let credentialHeaders = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key", "apikey",
        "x-auth-token", "x-access-token", "x-amz-security-token", "x-goog-api-key", "ocp-apim-subscription-key",
        "private-token", "x-vault-token", "x-csrf-token", "x-xsrf-token",
    ]

    /// Names of parameters and fields that usually carry credentials, signed URLs' signatures
    /// and keys among them (`X-Amz-Signature`, `sig`, `AWSAccessKeyId`).
    public static let credentialNames = [
        "password", "passwd", "secret", "client_secret", "access_token", "refresh_token", "id_token", "token",
        "api_key", "apikey", "api-key", "signature", "sig", "x-amz-signature", "x-amz-credential",
        "x-amz-security-token", "awsaccesskeyid", "x-goog-signature", "x-goog-credential",
    ]

    /// Nothing hidden (for tests of your own redaction rules; never for production logs).
    public static let none = Redaction(headers: [], queryKeys: [], bodyFields: [])

    // MARK: Applying

    /// The headers with hidden values; the URLs of `Location`, `Content-Location` and `Referer`
    /// redacted as URLs.
    func redact(_ fields: HTTPFields) -> HTTPFields {
        var redacted = HTTPFields()
        for field in fields {
            let value: String
            if Self.matches(field.name.rawName, headers) {
                value = replacement
            } else if Self.urlHeaders.contains(field.name) {
                value = redacting(urlText: field.value)
            } else {
                value = field.value
            }
            redacted.append(HTTPField(name: field.name, value: value))
        }
        return redacted
    }

    /// Headers whose value is a URL.
    private static let urlHeaders: [HTTPField.Name] = [.location, .contentLocation, .referer]

    /// The URL as text with its user info and credential query values hidden. (Text for a log,
    /// not a URL: the replacement is not percent-encoded.)
    public func redacting(_ url: URL) -> String {
        redacting(urlText: url.absoluteString, userInfoEndsAtPath: true)
    }

    /// A URL written as text (a `Location` value, say), redacted as ``redacting(_:)`` does; text
    /// that is not a URL passes through its query rule only.
    public func redacting(urlText text: String) -> String {
        redacting(urlText: text, userInfoEndsAtPath: false)
    }

    /// `userInfoEndsAtPath`: the text is a parsed URL's, whose user info cannot hold a `/`.
    private func redacting(urlText text: String, userInfoEndsAtPath: Bool) -> String {
        var text = text
        if let userInfo = Self.userInfoRange(in: text, endsAtPath: userInfoEndsAtPath) {
            let hidden = text[userInfo].contains(":") ? "\(replacement):\(replacement)" : replacement
            text.replaceSubrange(userInfo, with: hidden)
        }
        // The query, then the fragment (OAuth's implicit flow puts `access_token` there).
        let fragmentStart = text.firstIndex(of: "#") ?? text.endIndex
        let queryStart = text[..<fragmentStart].firstIndex(of: "?")
        var redacted = String(text[..<(queryStart ?? fragmentStart)])
        if let queryStart {
            redacted += "?" + redactingPairs(text[text.index(after: queryStart)..<fragmentStart])
        }
        if fragmentStart < text.endIndex {
            redacted += "#" + redactingPairs(text[text.index(after: fragmentStart)...])
        }
        return redacted
    }

    /// `name=value&…` with the values of credential names hidden.
    private func redactingPairs(_ pairs: Substring) -> String {
        pairs.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            let name = pair.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            return matchesField(name, queryKeys) ? "\(name)=\(replacement)" : String(pair)
        }.joined(separator: "&")
    }

    /// `text` with every appearance of `url` redacted, and its user info hidden wherever it is.
    func scrub(_ text: String, of url: URL) -> String {
        let absolute = url.absoluteString
        var text = text.replacingEvery(absolute, with: redacting(url))
        if let userInfo = Self.userInfoRange(in: absolute) {
            let secret = String(absolute[userInfo]) + "@"
            let hidden = absolute[userInfo].contains(":") ? "\(replacement):\(replacement)@" : "\(replacement)@"
            text = text.replacingEvery(secret, with: hidden)
        }
        return text
    }

    /// Where the user info (`user:password`, or a token as user name) of a URL's text is,
    /// without its `@`: up to the last `@` before the path of a parsed URL, or before the query
    /// or fragment of text. A raw `/` in a password is not valid, but text from a server may
    /// hold one, so in text a path with an `@` is hidden with it rather than a password shown.
    private static func userInfoRange(in text: String, endsAtPath: Bool = true) -> Range<String.Index>? {
        let authorityStart: String.Index
        if text.hasPrefix("//") {
            authorityStart = text.index(text.startIndex, offsetBy: 2)
        } else if let schemeEnd = text.utf8.firstRange(of: "://".utf8) {
            authorityStart = schemeEnd.upperBound
        } else {
            return nil
        }
        let beforeQuery = text[authorityStart...].prefix { $0 != "?" && $0 != "#" && !(endsAtPath && $0 == "/") }
        guard let at = beforeQuery.lastIndex(of: "@"), at > beforeQuery.startIndex else { return nil }
        return beforeQuery.startIndex..<at
    }

    /// Whether a parameter or field name, percent- and `+`-decoded, matches `patterns` as it is
    /// or by its innermost bracketed name (`user[password]`, `a[b][token]`).
    private func matchesField(_ encodedName: String, _ patterns: [String]) -> Bool {
        var name = QueryEscaping.unescape(Substring(encodedName))
        // Foundation escapes a `%` again when it escapes a query's brackets: `%255B` is `[`.
        if name.utf8.contains(UInt8(ascii: "%")) { name = QueryEscaping.unescape(Substring(name), plusIsSpace: false) }
        if Self.matches(name, patterns) { return true }
        guard name.hasSuffix("]"), let open = name.lastIndex(of: "[") else { return false }
        return Self.matches(String(name[name.index(after: open)..<name.index(before: name.endIndex)]), patterns)
    }

    /// A body as text with hidden fields, or `nil` when it is not text.
    func redactBody(_ body: Data, contentType: String?) -> String? {
        guard let text = String(data: body, encoding: .utf8), !text.contains("\u{0}") else { return nil }
        let type = contentType ?? ""
        if type == "application/json" || type.hasSuffix("+json"),
            let json = try? JSONDecoder().decodeJSONValue(from: body)
        {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return (try? encoder.encode(redact(json))).map { String(decoding: $0, as: UTF8.self) } ?? text
        }
        if type == "application/x-www-form-urlencoded" {
            return text.split(separator: "&", omittingEmptySubsequences: false).map { pair in
                let name = pair.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
                return matchesField(name, bodyFields) ? "\(name)=\(replacement)" : String(pair)
            }.joined(separator: "&")
        }
        return text
    }

    private func redact(_ json: JSON) -> JSON {
        switch json {
        case .object(let members):
            var redacted: [String: JSON] = [:]
            for (key, value) in members {
                redacted[key] = Self.matches(key, bodyFields) ? .string(replacement) : redact(value)
            }
            return .object(redacted)
        case .array(let elements): return .array(elements.map(redact))
        default: return json
        }
    }

    /// Whether `name` matches one of `patterns` (case-insensitive, `*` as a wildcard).
    static func matches(_ name: String, _ patterns: [String]) -> Bool {
        let name = name.lowercased()
        return patterns.contains { pattern in glob(Substring(pattern.lowercased()), Substring(name)) }
    }

    private static func glob(_ pattern: Substring, _ text: Substring) -> Bool {
        guard let star = pattern.firstIndex(of: "*") else { return pattern == text }
        let prefix = pattern[..<star]
        guard text.hasPrefix(prefix) else { return false }
        let rest = pattern[pattern.index(after: star)...]
        var remainder = text.dropFirst(prefix.count)
        while true {
            if glob(rest, remainder) { return true }
            guard !remainder.isEmpty else { return false }
            remainder = remainder.dropFirst()
        }
    }
}
