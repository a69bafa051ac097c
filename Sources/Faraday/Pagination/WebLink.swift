import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One link of a `Link` header field (RFC 8288, Web Linking): a target, its relation types and
/// its other parameters.
///
/// ```swift
/// let env = try await connection.get("repos/swiftlang/swift/issues").value
/// let next = env.links.first { $0.has(relation: "next") }?.target
/// ```
///
/// GitHub, GitLab and many other APIs page this way:
/// `Link: <https://api.github.com/…&page=3>; rel="next", <…&page=9>; rel="last"`.
public struct WebLink: Sendable, Hashable {
    /// The target, resolved against the URL of the request that got the response.
    public var target: URL
    /// The relation types (`rel`), lowercased; a `rel` may name several (`rel="next last"`).
    public var relations: [String]
    /// The other parameters (`title`, `type`, `hreflang`, `anchor`…) by lowercased name; the
    /// first occurrence of a name wins, as RFC 8288 §3 says.
    public var parameters: [String: String]

    /// Creates a link.
    public init(target: URL, relations: [String], parameters: [String: String] = [:]) {
        self.target = target
        self.relations = relations
        self.parameters = parameters
    }

    /// Whether one of the link's relation types is `relation` (case-insensitively).
    public func has(relation: String) -> Bool { relations.contains(relation.lowercased()) }

    /// The links of `Link` field values, in order, their targets resolved against `base`. A link
    /// that cannot be read (no `<…>`, a target that is no URL) is skipped, and reading goes on
    /// from the next comma that is not inside `<…>` or quotes.
    public static func parse(_ fieldValues: [String], relativeTo base: URL?) -> [WebLink] {
        fieldValues.flatMap { value in
            var reader = LinkFieldReader(Array(value.utf8))
            return reader.links(relativeTo: base)
        }
    }
}

extension Env {
    /// The links of the response's `Link` fields, resolved against the request's URL.
    public var links: [WebLink] {
        guard let name = HTTPField.Name("Link") else { return [] }
        return WebLink.parse(responseHeaders[values: name], relativeTo: request.url)
    }

    /// The target of the first link with relation type `relation` (`next`, `prev`, `last`…).
    public func link(_ relation: String) -> URL? {
        links.first { $0.has(relation: relation) }?.target
    }
}

/// Reads one `Link` field value: `#link-value`, each `"<" URI-Reference ">" *( OWS ";" OWS
/// link-param )`, where a `link-param` is `token BWS [ "=" BWS ( token / quoted-string ) ]`.
private struct LinkFieldReader {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func links(relativeTo base: URL?) -> [WebLink] {
        var links: [WebLink] = []
        while index < bytes.count {
            skip { $0 == UInt8(ascii: ",") || Self.isWhitespace($0) }
            guard index < bytes.count else { break }
            if let link = link(relativeTo: base) { links.append(link) }
            skipToNextLink()
        }
        return links
    }

    private mutating func link(relativeTo base: URL?) -> WebLink? {
        guard bytes[index] == UInt8(ascii: "<"), let close = bytes[index...].firstIndex(of: UInt8(ascii: ">")) else {
            return nil
        }
        let reference = String(decoding: bytes[(index + 1)..<close], as: UTF8.self)
        index = close + 1
        var relations: [String] = []
        var hasRelation = false
        var parameters: [String: String] = [:]
        while true {
            skip(while: Self.isWhitespace)
            guard index < bytes.count, bytes[index] == UInt8(ascii: ";") else { break }
            index += 1
            skip(while: Self.isWhitespace)
            let name = String(decoding: take(while: Self.isTokenByte), as: UTF8.self).lowercased()
            guard !name.isEmpty else { break }
            skip(while: Self.isWhitespace)
            var value = ""
            if index < bytes.count, bytes[index] == UInt8(ascii: "=") {
                index += 1
                skip(while: Self.isWhitespace)
                value = quotedOrToken()
            }
            if name == "rel" {
                // Only the first rel counts (RFC 8288 §3.3).
                guard !hasRelation else { continue }
                hasRelation = true
                relations = value.split(whereSeparator: { $0 == " " || $0 == "\t" }).map { $0.lowercased() }
            } else if parameters[name] == nil {
                parameters[name] = value
            }
        }
        let trimmed = reference.trimmingWhitespace()
        // An empty reference is the base itself (RFC 3986 §5.2.2), which Foundation does not resolve.
        guard let target = trimmed.isEmpty ? base : URL(string: trimmed, relativeTo: base)?.absoluteURL else {
            return nil
        }
        return WebLink(target: target, relations: relations, parameters: parameters)
    }

    /// A quoted string (backslash escapes undone) or a token.
    private mutating func quotedOrToken() -> String {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
            return String(decoding: take(while: Self.isTokenByte), as: UTF8.self)
        }
        index += 1
        var value: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\"), index < bytes.count {
                value.append(bytes[index])
                index += 1
            } else {
                value.append(byte)
            }
        }
        return String(decoding: value, as: UTF8.self)
    }

    /// Past the next comma that is not inside `<…>` or a quoted string.
    private mutating func skipToNextLink() {
        var inQuotes = false
        var inTarget = false
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\\") where inQuotes: index += 1
            case UInt8(ascii: "\""): if !inTarget { inQuotes.toggle() }
            case UInt8(ascii: "<"): if !inQuotes { inTarget = true }
            case UInt8(ascii: ">"): if !inQuotes { inTarget = false }
            case UInt8(ascii: ","): if !inQuotes && !inTarget { return }
            default: break
            }
        }
    }

    private mutating func skip(while predicate: (UInt8) -> Bool) {
        while index < bytes.count, predicate(bytes[index]) { index += 1 }
    }

    private mutating func take(while predicate: (UInt8) -> Bool) -> ArraySlice<UInt8> {
        let start = index
        skip(while: predicate)
        return bytes[start..<index]
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }

    /// RFC 9110 `tchar`, and `*` for RFC 8187's `title*`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}

extension WebLink: CustomReflectable {
    /// The link with its target redacted (a signed or tokened URL), for `print` and `dump`.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "target": Redaction().redacting(target), "relations": relations, "parameters": parameters,
            ],
            displayStyle: .struct
        )
    }
}
