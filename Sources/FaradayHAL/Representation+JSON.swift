import Faraday
import Foundation

extension Representation {
    /// The most embedded levels a document may nest: deeper is refused rather than recursed into.
    public static let maximumDepth = 64

    /// Reads a HAL document. Throws `FaradayError.Code.parsingFailed` for bytes that are not
    /// JSON, or JSON that is not HAL (`_links` or `_embedded` of the wrong shape, a link without
    /// an `href`).
    public init(data: Data, url: URL? = nil) throws(FaradayError) {
        let json: JSON
        do {
            json = try JSONDecoder().decodeJSONValue(from: data)
        } catch {
            throw FaradayError(.parsingFailed, "The document is not valid JSON: \(error)", underlying: error)
        }
        try self.init(json: json, url: url)
    }

    /// Sets ``credentialOrigins`` here and in every embedded resource, at any depth.
    private mutating func bindCredentials(to origins: [String]) {
        credentialOrigins = origins
        for (relation, resources) in embedded {
            let bound = resources.all.map { resource in
                var resource = resource
                resource.bindCredentials(to: origins)
                return resource
            }
            if case .single = resources, let only = bound.first {
                embedded[relation] = .single(only)
            } else {
                embedded[relation] = .array(bound)
            }
        }
    }

    /// Reads the body of a completion, the error (if any) carrying its request and response.
    init(reading env: Env) throws(FaradayError) {
        do {
            try self.init(data: env.response?.body ?? Data(), url: env.request.url)
            // Those of the call; with none (no base URL, none listed), the origin of the URL the
            // caller asked for, before any redirect.
            var origins = env.request.options.credentialOrigins
            if origins.isEmpty, let origin = Origin(env.redirects.first?.from ?? env.request.url) {
                origins = ["\(origin)"]
            }
            bindCredentials(to: origins)
        } catch {
            var error = error.attaching(env.request)
            error.response = env.response
            throw error
        }
    }

    /// Reads a HAL document from a JSON value.
    public init(json: JSON, url: URL? = nil) throws(FaradayError) {
        try self.init(json: json, url: url, inheritedCURIEs: [], depth: 0)
    }

    private init(json: JSON, url: URL?, inheritedCURIEs: [Link], depth: Int) throws(FaradayError) {
        guard depth <= Self.maximumDepth else {
            throw HALError.malformed("embedded resources nest more than \(Self.maximumDepth) levels deep")
        }
        guard var object = json.object else { throw HALError.malformed("a resource is not a JSON object") }
        let linksJSON = object.removeValue(forKey: "_links")
        let embeddedJSON = object.removeValue(forKey: "_embedded")
        self.init(object, url: url)
        self.inheritedCURIEs = inheritedCURIEs

        if let linksJSON, !linksJSON.isNull {
            guard let relations = linksJSON.object else { throw HALError.malformed("_links is not an object") }
            for (relation, value) in relations {
                links[relation] = try Self.relation(value, named: relation) { json throws(FaradayError) in
                    try Link(json: json, relation: relation)
                }
            }
        }
        if let embeddedJSON, !embeddedJSON.isNull {
            guard let relations = embeddedJSON.object else { throw HALError.malformed("_embedded is not an object") }
            let curies = self.curies + inheritedCURIEs
            for (relation, value) in relations {
                embedded[relation] = try Self.relation(value, named: relation) { json throws(FaradayError) in
                    try Representation(json: json, url: url, inheritedCURIEs: curies, depth: depth + 1)
                }
            }
        }
    }

    private static func relation<Element>(
        _ value: JSON,
        named name: String,
        _ read: (JSON) throws(FaradayError) -> Element
    ) throws(FaradayError) -> Relation<Element> {
        if let array = value.array {
            var elements: [Element] = []
            for element in array { elements.append(try read(element)) }
            return .array(elements)
        }
        return .single(try read(value))
    }

    /// The document as a JSON value: properties, then `_links` and `_embedded` when not empty.
    public var json: JSON {
        var object = properties
        if !links.isEmpty { object["_links"] = .object(links.mapValues { Self.render($0, \.json) }) }
        if !embedded.isEmpty { object["_embedded"] = .object(embedded.mapValues { Self.render($0, \.json) }) }
        return .object(object)
    }

    private static func render<Element>(_ relation: Relation<Element>, _ json: (Element) -> JSON) -> JSON {
        switch relation {
        case .single(let element): json(element)
        case .array(let elements): .array(elements.map(json))
        }
    }

    /// The document as `application/hal+json` bytes.
    public func encoded(encoder: JSONEncoder = JSONEncoder()) throws(FaradayError) -> Data {
        do {
            return try encoder.encode(json)
        } catch {
            throw FaradayError(.encodingFailed, "The representation cannot be encoded: \(error)", underlying: error)
        }
    }
}

extension Representation: Codable {
    /// Decodes a HAL document (see ``init(json:url:)``).
    public init(from decoder: any Decoder) throws {
        try self.init(json: JSON(from: decoder))
    }

    /// Encodes the document as ``json``.
    public func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }
}
