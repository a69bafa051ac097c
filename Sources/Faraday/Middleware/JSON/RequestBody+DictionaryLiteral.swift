extension RequestBody: ExpressibleByDictionaryLiteral {
    /// A dictionary literal as a JSON body (`request.body = ["ping": "pong"]`, as the original
    /// Swift Faraday's `EncodeJSON` took a dictionary): ``json(_:)-(JSON)`` of the object.
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self = .json(JSON.object(Dictionary(elements, uniquingKeysWith: { _, last in last })))
    }
}
