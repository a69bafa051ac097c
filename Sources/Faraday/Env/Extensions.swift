/// Typed values that middleware keep in a core value (``Env``, ``RequestOptions``,
/// ``FaradayError``) without the core knowing their types: the storage behind their
/// `subscript(_:)`, keyed by an ``EnvKey`` type.
struct Extensions: Sendable {
    private var values: [ObjectIdentifier: any Sendable] = [:]

    subscript<Key: EnvKey>(_ key: Key.Type) -> Key.Value? {
        get { values[ObjectIdentifier(key)] as? Key.Value }
        set {
            // Room for the few keys a stack sets, so that the storage is made once and not regrown.
            if values.isEmpty, newValue != nil { values.reserveCapacity(8) }
            values[ObjectIdentifier(key)] = newValue
        }
    }

}

extension Extensions: CustomStringConvertible, CustomReflectable {
    /// The types of the values kept (`[TLSOptions, DecodedJSON]`), not the values: a middleware's
    /// value may hold a secret (a token answer decoded by DecodeJSON, a client's private key).
    var description: String { "[" + typeNames.joined(separator: ", ") + "]" }

    /// The same type names, for `dump`.
    var customMirror: Mirror { Mirror(self, unlabeledChildren: typeNames, displayStyle: .set) }

    private var typeNames: [String] { values.values.map { "\(type(of: $0))" }.sorted() }
}
