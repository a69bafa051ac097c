import Foundation
import HTTPTypes

extension HTTPFields {
    /// Sets `Authorization: Basic …` from a login and password (UTF-8, base64).
    ///
    /// `auth(login: "login", pass: "pass")` sets `Basic bG9naW46cGFzcw==`.
    public mutating func auth(login: String, pass: String) {
        self[.authorization] = "Basic " + Data("\(login):\(pass)".utf8).base64EncodedString()
    }

    /// Sets `Authorization: Token token="…"`, followed by `options` as `key="value"` pairs in
    /// sorted key order; quotes and backslashes in values are escaped.
    public mutating func auth(token: String, options: [String: String] = [:]) {
        let pairs = [("token", token)] + options.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        self[.authorization] = "Token " + pairs.map { "\($0.0)=\(Self.quoted($0.1))" }.joined(separator: ", ")
    }

    /// Sets `Authorization: Bearer …`.
    public mutating func bearer(_ token: String) {
        self[.authorization] = "Bearer " + token
    }

    /// Adds media types to `Accept`, keeping those already there and skipping duplicates.
    public mutating func accepts(contentTypes: [String]) {
        var accepted = self[values: .accept].flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        for type in contentTypes where !accepted.contains(where: { $0.caseInsensitiveCompare(type) == .orderedSame }) {
            accepted.append(type)
        }
        self[.accept] = accepted.joined(separator: ", ")
    }

    /// The media type of `Content-Type`, lowercased, without parameters (`application/json`).
    public var contentType: String? {
        guard let value = self[.contentType] else { return nil }
        let type = value.split(separator: ";", maxSplits: 1).first ?? ""
        let trimmed = type.trimmingCharacters(in: .whitespaces).lowercased()
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The parameters of `Content-Type` (`charset`, `boundary`…), keys lowercased, quotes removed.
    public var contentTypeParameters: [String: String] {
        guard let value = self[.contentType] else { return [:] }
        var parameters: [String: String] = [:]
        for piece in value.split(separator: ";").dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            let key = pair[0].trimmingCharacters(in: .whitespaces).lowercased()
            var parameter = pair[1].trimmingCharacters(in: .whitespaces)
            if parameter.count >= 2, parameter.hasPrefix("\""), parameter.hasSuffix("\"") {
                parameter = String(parameter.dropFirst().dropLast())
            }
            parameters[key] = parameter
        }
        return parameters
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
        "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    private static func needsQuotes(_ value: String) -> Bool {
        value.isEmpty || value.contains { !($0.isASCII && ($0.isLetter || $0.isNumber || "-._~+!#$&^`|*'".contains($0))) }
    }
}
