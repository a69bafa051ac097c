import Foundation
import HTTPTypes

/// What ``HTTPLogger`` and ``Request/curlCommand(redacting:)`` hide: header values, query
/// values and body fields whose names match, replaced by ``placeholder``.
///
/// Names match case-insensitively; a `*` matches any run of characters (`x-api-*`, `*token*`).
/// The defaults hide credentials and session cookies; add your own names to the lists.
public struct Redaction: Sendable {
    /// The text shown instead of a secret.
    public static let placeholder = "[REDACTED]"

    /// Header names whose values are hidden.
    public var headers: [String]
    /// Query parameter names whose values are hidden.
    public var queryKeys: [String]
    /// JSON and form body fields whose values are hidden, at any depth.
    public var bodyFields: [String]

    /// Creates a redaction; the defaults hide `Authorization`, `Proxy-Authorization`, `Cookie`,
    /// `Set-Cookie`, and common credential parameters and fields.
    public init(
        headers: [String] = ["authorization", "proxy-authorization", "cookie", "set-cookie"],
        queryKeys: [String] = Redaction.credentialNames,
        bodyFields: [String] = Redaction.credentialNames
    ) {
        self.headers = headers
        self.queryKeys = queryKeys
        self.bodyFields = bodyFields
    }

    /// Names of parameters and fields that usually carry credentials.
    public static let credentialNames = [
        "password", "passwd", "secret", "client_secret", "access_token", "refresh_token", "id_token", "token",
        "api_key", "apikey",
    ]

    /// Nothing hidden (for tests of your own redaction rules; never for production logs).
    public static let none = Redaction(headers: [], queryKeys: [], bodyFields: [])

    // MARK: Applying

    /// The headers with hidden values.
    func redact(_ fields: HTTPFields) -> HTTPFields {
        var redacted = HTTPFields()
        for field in fields {
            let value = Self.matches(field.name.rawName, headers) ? Self.placeholder : field.value
            redacted.append(HTTPField(name: field.name, value: value))
        }
        return redacted
    }

    /// The URL as text with hidden query values and no password in its user info. (Text for a
    /// log, not a URL: the placeholder is not percent-encoded.)
    func redact(_ url: URL) -> String {
        var text = url.absoluteString
        if let password = Self.password(of: url), let range = text.range(of: ":" + password + "@") {
            text.replaceSubrange(range, with: ":" + Self.placeholder + "@")
        }
        guard let questionMark = text.firstIndex(of: "?") else { return text }
        let fragmentStart = text[questionMark...].firstIndex(of: "#") ?? text.endIndex
        let query = text[text.index(after: questionMark)..<fragmentStart]
        let redacted = query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            let name = pair.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            let decoded = name.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? name
            return Self.matches(decoded, queryKeys) ? "\(name)=\(Self.placeholder)" : String(pair)
        }.joined(separator: "&")
        return String(text[...questionMark]) + redacted + String(text[fragmentStart...])
    }

    /// `text` with every appearance of `url` redacted, and its password hidden wherever it is.
    func scrub(_ text: String, of url: URL) -> String {
        var text = text.replacingOccurrences(of: url.absoluteString, with: redact(url))
        if let password = Self.password(of: url), !password.isEmpty {
            text = text.replacingOccurrences(of: ":" + password + "@", with: ":" + Self.placeholder + "@")
        }
        return text
    }

    /// The URL's password as it is written in the URL (percent-encoded), when it has one.
    private static func password(of url: URL) -> String? {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPassword
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
                let decoded = (name.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? name)
                let bare =
                    decoded.hasSuffix("]") ? String(decoded.split(separator: "[").last?.dropLast() ?? "") : decoded
                return Self.matches(decoded, bodyFields) || Self.matches(bare, bodyFields)
                    ? "\(name)=\(Self.placeholder)" : String(pair)
            }.joined(separator: "&")
        }
        return text
    }

    private func redact(_ json: JSON) -> JSON {
        switch json {
        case .object(let members):
            var redacted: [String: JSON] = [:]
            for (key, value) in members {
                redacted[key] = Self.matches(key, bodyFields) ? .string(Self.placeholder) : redact(value)
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
