import Faraday
import Foundation

/// A HAL resource: its properties, its links by relation and its embedded resources.
///
/// Read one from a response (``DecodeHAL`` puts it in `Env.representation`), or from
/// bytes:
///
/// ```swift
/// let order = try Representation(data: body)
/// let total = order["total"]?.double
/// let items = order.embedded("shop:item")          // CURIEs resolve: "shop:item" or its full URI
/// let basket = order.link("shop:basket")?.href
/// ```
///
/// Build one and render it:
///
/// ```swift
/// let order = Representation(["total": 30, "currency": "USD"])
///     .addingLink("self", href: "/orders/123")
///     .addingCURIE(name: "shop", href: "https://example.com/rels/{rel}")
///     .embedding("shop:item", [Representation(["sku": "tea"])])
/// let data = try order.encoded()
/// ```
///
/// Relations keep their shape: a relation given as an array renders as an array, even of one.
/// Two representations are equal when they render the same JSON.
public struct Representation: Sendable, Hashable {
    /// The value of one relation: a single item or an array of them.
    public enum Relation<Element: Sendable & Hashable>: Sendable, Hashable {
        /// One item, rendered as an object.
        case single(Element)
        /// Any number of items, rendered as an array.
        case array([Element])

        /// Every item, in order.
        public var all: [Element] {
            switch self {
            case .single(let element): [element]
            case .array(let elements): elements
            }
        }

        func appending(_ element: Element) -> Relation {
            .array(all + [element])
        }
    }

    /// The resource's own properties: every member but `_links` and `_embedded`.
    public var properties: [String: JSON]
    /// The links, by relation as the document names it (`self`, `next`, `shop:item`, a URI).
    public var links: [String: Relation<Link>]
    /// The embedded resources, by relation.
    public var embedded: [String: Relation<Representation>]
    /// The URL the representation was read from: relative `href`s resolve against it. Not
    /// rendered, and not part of equality.
    public var url: URL?
    /// The CURIEs of the documents this one is embedded in, for resolving compact relations.
    var inheritedCURIEs: [Link] = []
    /// The origins the call that read this document could send credentials to: links followed
    /// from it keep to them, so that trust never moves to an origin a document names.
    var credentialOrigins: [String] = []

    /// Creates a representation with `properties` and no links or embedded resources.
    public init(_ properties: [String: JSON] = [:], url: URL? = nil) {
        self.properties = properties
        self.links = [:]
        self.embedded = [:]
        self.url = url
    }

    public static func == (lhs: Representation, rhs: Representation) -> Bool {
        lhs.properties == rhs.properties && lhs.links == rhs.links && lhs.embedded == rhs.embedded
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(properties)
        hasher.combine(links)
        hasher.combine(embedded)
    }

    // MARK: Properties

    /// The property named `name`.
    public subscript(name: String) -> JSON? { properties[name] }

    /// The properties decoded as `T`.
    public func decode<T: Decodable>(
        _ type: T.Type = T.self,
        decoder: JSONDecoder = JSONDecoder()
    ) throws(FaradayError) -> T {
        try Self.decode(type, from: .object(properties), decoder: decoder, what: "The properties")
    }

    /// The property `name` decoded as `T`; throws `FaradayError.Code.parsingFailed` when it is
    /// missing or of another shape.
    public func property<T: Decodable>(
        _ name: String,
        as type: T.Type = T.self,
        decoder: JSONDecoder = JSONDecoder()
    ) throws(FaradayError) -> T {
        guard let value = properties[name] else {
            throw FaradayError(.parsingFailed, "The representation has no property \"\(name)\".")
        }
        return try Self.decode(type, from: value, decoder: decoder, what: "The property \"\(name)\"")
    }

    private static func decode<T: Decodable>(
        _ type: T.Type,
        from json: JSON,
        decoder: JSONDecoder,
        what: String
    ) throws(FaradayError) -> T {
        do {
            return try decoder.decode(T.self, from: JSONEncoder().encode(json))
        } catch {
            throw FaradayError(.parsingFailed, "\(what) cannot be decoded as \(T.self): \(error)", underlying: error)
        }
    }

    // MARK: Links and embedded resources

    /// The `self` link.
    public var selfLink: Link? { links["self"]?.all.first }

    /// The CURIEs this representation declares (`_links.curies`).
    public var curies: [Link] { links["curies"]?.all ?? [] }

    /// Every relation this representation has, as links or embedded resources (CURIEs left out).
    public var relations: [String] {
        Set(links.keys).union(embedded.keys).subtracting(["curies"]).sorted()
    }

    /// The links of `relation`, given as the document names it, compact (`shop:item`) or as the
    /// full URI a CURIE expands it to.
    public func links(_ relation: String) -> [Link] {
        key(for: relation, in: links.keys).flatMap { links[$0]?.all } ?? []
    }

    /// The first link of `relation`, or the one named `name`.
    public func link(_ relation: String, name: String? = nil) -> Link? {
        links(relation).first { name == nil || $0.name == name }
    }

    /// The embedded resources of `relation` (compact or full, as for ``links(_:)``).
    public func embedded(_ relation: String) -> [Representation] {
        key(for: relation, in: embedded.keys).flatMap { embedded[$0]?.all } ?? []
    }

    /// `relation` with a CURIE prefix expanded (`shop:item` to `https://example.com/rels/item`);
    /// other relations unchanged.
    public func expandedRelation(_ relation: String) -> String {
        guard let colon = relation.firstIndex(of: ":") else { return relation }
        let prefix = String(relation[..<colon])
        let reference = String(relation[relation.index(after: colon)...])
        guard let curie = (curies + inheritedCURIEs).first(where: { $0.name == prefix }),
            let expanded = try? URITemplate(curie.href).expand(["rel": .string(reference)])
        else { return relation }
        return expanded
    }

    private func key(for relation: String, in keys: Dictionary<String, some Any>.Keys) -> String? {
        if keys.contains(relation) { return relation }
        let wanted = expandedRelation(relation)
        return keys.first { expandedRelation($0) == wanted }
    }

    // MARK: Building

    /// A copy with the property `name` set to `value`.
    public func setting(_ name: String, to value: JSON) -> Representation {
        var copy = self
        copy.properties[name] = value
        return copy
    }

    /// A copy with `link` added to `relation` (a second link makes the relation an array).
    public func addingLink(_ relation: String, _ link: Link) -> Representation {
        var copy = self
        copy.links[relation] = copy.links[relation].map { $0.appending(link) } ?? .single(link)
        return copy
    }

    /// A copy with a link to `href` added to `relation`.
    public func addingLink(
        _ relation: String,
        href: String,
        templated: Bool = false,
        name: String? = nil,
        title: String? = nil
    ) -> Representation {
        addingLink(relation, Link(href: href, templated: templated, name: name, title: title))
    }

    /// A copy whose `relation` holds `links`, rendered as an array whatever their number.
    public func addingLinks(_ relation: String, _ links: [Link]) -> Representation {
        var copy = self
        copy.links[relation] = .array((copy.links[relation]?.all ?? []) + links)
        return copy
    }

    /// A copy with a CURIE: `name` abbreviates relations whose full URI is `href` (a template with
    /// `{rel}`).
    public func addingCURIE(name: String, href: String) -> Representation {
        addingLinks("curies", [Link(href: href, templated: true, name: name)])
    }

    /// A copy with `representation` embedded under `relation` (a second one makes an array).
    public func embedding(_ relation: String, _ representation: Representation) -> Representation {
        var copy = self
        copy.embedded[relation] =
            copy.embedded[relation].map { $0.appending(representation) } ?? .single(representation)
        return copy
    }

    /// A copy whose `relation` embeds `representations`, rendered as an array whatever their number.
    public func embedding(_ relation: String, _ representations: [Representation]) -> Representation {
        var copy = self
        copy.embedded[relation] = .array((copy.embedded[relation]?.all ?? []) + representations)
        return copy
    }
}

extension Representation: CustomReflectable {
    /// The document as `print` and `dump` show a plain struct's, with the URL it was read from
    /// redacted (its links redact their own `href`s; properties are the server's data).
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "properties": properties, "links": links, "embedded": embedded,
                "url": url.map { Redaction().redacting($0) } as Any,
            ],
            displayStyle: .struct
        )
    }
}
