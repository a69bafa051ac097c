import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension HTTPFields {
    /// Sets `Authorization: Basic …` from a login and password (UTF-8, base64).
    ///
    /// `auth(login: "login", pass: "pass")` sets `Basic bG9naW46cGFzcw==`, and returns the value
    /// set (the original Swift Faraday's callers wrote `_ = headers.auth(…)`).
    @discardableResult
    public mutating func auth(login: String, pass: String) -> String {
        let value = "Basic " + Data("\(login):\(pass)".utf8).base64EncodedString()
        self[.authorization] = value
        return value
    }

    /// Sets `Authorization: Token token="…"`, followed by `options` as `key="value"` pairs in
    /// sorted key order; quotes and backslashes in values are escaped.
    /// Returns the value set.
    @discardableResult
    public mutating func auth(token: String, options: [String: String] = [:]) -> String {
        let pairs = [("token", token)] + options.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        let value = "Token " + pairs.map { "\($0.0)=\(Self.quoted($0.1))" }.joined(separator: ", ")
        self[.authorization] = value
        return value
    }

    /// Sets `Authorization: Bearer …`.
    public mutating func bearer(_ token: String) {
        self[.authorization] = "Bearer " + token
    }

    /// Adds media types to `Accept`, keeping those already there and skipping duplicates.
    public mutating func accepts(contentTypes: [String]) {
        guard contains(.accept) else {
            // The usual case, no `Accept` yet: no list of the existing values is made.
            guard !contentTypes.isEmpty else { return }
            append(HTTPField(name: .accept, value: contentTypes.joined(separator: ", ")))
            return
        }
        let existing = self[values: .accept]
        var accepted = existing.flatMap { $0.split(separator: ",") }.map(\.trimmingHTTPWhitespace).filter {
            !$0.isEmpty
        }
        let before = accepted.count
        for type in contentTypes where !accepted.contains(where: { $0.equalsIgnoringASCIICase(type) }) {
            accepted.append(type[...])
        }
        guard accepted.count != before || existing.count != 1 else { return }
        self[.accept] = accepted.joined(separator: ", ")
    }

    /// The media type of `Content-Type`, lowercased, without parameters (`application/json`).
    public var contentType: String? {
        guard let value = singleValue(.contentType) else { return nil }
        let type = value[..<(value.utf8.firstIndex(of: UInt8(ascii: ";")) ?? value.endIndex)].trimmingHTTPWhitespace
        guard !type.isEmpty else { return nil }
        return type.lowercasedASCII
    }

    /// The value of a field, as `self[name]` reads it (several fields joined with `, `, or `; `
    /// for `Cookie`), without joining when there is one, the usual case: HTTPTypes' subscript
    /// joins through generic code on every read.
    func singleValue(_ name: HTTPField.Name) -> String? {
        var found: String?
        for field in self where field.name == name {
            guard found == nil else { return self[name] }
            found = field.value
        }
        return found
    }

    /// The parameters of `Content-Type` (`charset`, `boundary`…), keys lowercased, quotes removed.
    public var contentTypeParameters: [String: String] {
        singleValue(.contentType).map(Self.mediaTypeParameters) ?? [:]
    }

    /// The parameters of a media type (`text/plain; charset=utf-8`), keys lowercased, quotes removed.
    static func mediaTypeParameters(_ value: String) -> [String: String] {
        var parameters: [String: String] = [:]
        for piece in value.utf8.split(separator: UInt8(ascii: ";")).dropFirst().map(Substring.init) {
            guard let equals = piece.utf8.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let key = piece[..<equals].trimmingHTTPWhitespace.lowercasedASCII
            var parameter = piece[piece.utf8.index(after: equals)...].trimmingHTTPWhitespace
            if parameter.utf8.count >= 2, parameter.utf8.first == UInt8(ascii: "\""),
                parameter.utf8.last == UInt8(ascii: "\"")
            {
                parameter = parameter.dropFirst().dropLast()
            }
            parameters[key] = String(parameter)
        }
        return parameters
    }

    /// The fields as one HTTP/1.1 message carries them: `HTTPFields` keeps a `Cookie` header as
    /// one field per cookie (RFC 9113 §8.2.3), but HTTP/1.1 allows one `Cookie` header (RFC 6265
    /// §5.4), so the cookie fields are joined with "; " where the first of them is.
    package func forEachJoiningCookies(_ body: (HTTPField) -> Void) {
        var cookiesSent = false
        for field in self {
            guard field.name == .cookie else {
                body(field)
                continue
            }
            guard !cookiesSent else { continue }
            cookiesSent = true
            body(HTTPField(name: .cookie, value: singleValue(.cookie) ?? field.value))
        }
    }

    /// Sets `Content-Type` to a media type with parameters (`text/plain; charset=utf-8`).
    public mutating func setContentType(_ mediaType: String, parameters: KeyValuePairs<String, String> = [:]) {
        let suffix = parameters.map { "; \($0.key)=\(Self.needsQuotes($0.value) ? Self.quoted($0.value) : $0.value)" }
        self[.contentType] = mediaType + suffix.joined()
    }

    /// These fields with `overrides` on top: every field of `overrides` replaces all fields of the
    /// same name here, keeping their order.
    public func merging(_ overrides: HTTPFields) -> HTTPFields {
        var merged = self
        let names = Set(overrides.map(\.name))
        for name in names { merged[values: name] = [] }
        merged.append(contentsOf: overrides)
        return merged
    }

    private static func quoted(_ value: String) -> String {
        "\"" + value.replacingEvery("\\", with: "\\\\").replacingEvery("\"", with: "\\\"") + "\""
    }

    private static func needsQuotes(_ value: String) -> Bool {
        value.isEmpty
            || value.contains { !($0.isASCII && ($0.isLetter || $0.isNumber || "-._~+!#$&^`|*'".contains($0))) }
    }
}

extension HTTPFields {
    /// The value of the field whose name is written in the source, as Ruby Faraday and Alamofire
    /// spell it: `request.headers["X-Client-Name"] = "my-app"`. Reading joins the fields of that
    /// name as HTTPTypes' subscript does; setting replaces them all, `nil` removes them.
    ///
    /// The name is a literal, checked as ``HTTPTypes/HTTPField/Name/named(_:)`` checks it: a
    /// literal that is not a valid field name stops the program the first time it runs. A name
    /// from outside data goes through `HTTPField.Name(_:)`, which returns `nil` for an invalid one.
    public subscript(_ literal: StaticString) -> String? {
        get { self[HTTPField.Name.named(literal)] }
        set { self[HTTPField.Name.named(literal)] = newValue }
    }
}

extension HTTPField.Name {
    /// A field name written in the source, with no optional to unwrap:
    /// `HTTPField(name: .named("X-Client-Name"), value: "my-app")`.
    ///
    /// Only a literal is accepted, so the name is the programmer's, never data from outside; a
    /// literal that is not a valid field name (a token) stops the program the first time it
    /// runs, as an invalid literal should. Build names from outside data with
    /// `HTTPField.Name(_:)`, which returns `nil` for an invalid one.
    public static func named(_ literal: StaticString) -> HTTPField.Name {
        let text = literal.withUTF8Buffer { String(decoding: $0, as: UTF8.self) }
        guard let name = HTTPField.Name(text) else {
            preconditionFailure("\(text.debugDescription) is not a valid HTTP field name")
        }
        return name
    }
}
