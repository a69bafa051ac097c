import Faraday
import Foundation

extension Representation {
    /// A HAL link object: the target of one relation.
    ///
    /// ```swift
    /// let search = Representation.Link(href: "/orders{?q,page}", templated: true)
    /// let href = try search.expand(["q": "tea"])   // "/orders?q=tea"
    /// ```
    public struct Link: Sendable, Hashable {
        /// The target URI, or a URI template when ``templated`` is `true`.
        public var href: String
        /// Whether ``href`` is an RFC 6570 URI template.
        public var templated: Bool
        /// The media type expected at the target.
        public var type: String?
        /// A URL telling that the link is deprecated, and why.
        public var deprecation: String?
        /// A secondary key among links of the same relation (and a CURIE's prefix).
        public var name: String?
        /// A profile of the target resource (RFC 6906).
        public var profile: String?
        /// A human-readable label.
        public var title: String?
        /// The language of the target resource.
        public var hreflang: String?

        /// Creates a link.
        public init(
            href: String,
            templated: Bool = false,
            type: String? = nil,
            deprecation: String? = nil,
            name: String? = nil,
            profile: String? = nil,
            title: String? = nil,
            hreflang: String? = nil
        ) {
            self.href = href
            self.templated = templated
            self.type = type
            self.deprecation = deprecation
            self.name = name
            self.profile = profile
            self.title = title
            self.hreflang = hreflang
        }

        /// The target: ``href`` with `variables` expanded when it is a template, else ``href``.
        /// Throws `FaradayError.Code.invalidURL` for a malformed template.
        public func expand(_ variables: [String: URITemplate.Value] = [:]) throws(FaradayError) -> String {
            guard templated else { return href }
            return try URITemplate(href).expand(variables)
        }

        init(json: JSON, relation: String) throws(FaradayError) {
            guard let object = json.object else {
                throw HALError.malformed("the link of \"\(relation)\" is not an object")
            }
            guard let href = object["href"]?.string else {
                throw HALError.malformed("the link of \"\(relation)\" has no string href")
            }
            func string(_ key: String) throws(FaradayError) -> String? {
                guard let value = object[key], !value.isNull else { return nil }
                guard let text = value.string else {
                    throw HALError.malformed("the \(key) of a link of \"\(relation)\" is not a string")
                }
                return text
            }
            self.init(
                href: href,
                templated: object["templated"]?.bool ?? false,
                type: try string("type"),
                deprecation: try string("deprecation"),
                name: try string("name"),
                profile: try string("profile"),
                title: try string("title"),
                hreflang: try string("hreflang")
            )
        }

        var json: JSON {
            var object: [String: JSON] = ["href": .string(href)]
            if templated { object["templated"] = true }
            let optional: [(String, String?)] = [
                ("type", type), ("deprecation", deprecation), ("name", name), ("profile", profile), ("title", title),
                ("hreflang", hreflang),
            ]
            for case (let key, let value?) in optional { object[key] = .string(value) }
            return .object(object)
        }
    }
}

/// The errors of FaradayHAL, all `FaradayError`s.
enum HALError {
    static func malformed(_ detail: String) -> FaradayError {
        FaradayError(.parsingFailed, "The document is not valid HAL: \(detail).")
    }
}

extension Representation.Link: CustomReflectable {
    /// The link with its `href` redacted (a tokened URL a server handed out), for `print` and `dump`.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "href": Redaction().redacting(urlText: href), "templated": templated, "type": type as Any,
                "name": name as Any, "title": title as Any,
            ],
            displayStyle: .struct
        )
    }
}
