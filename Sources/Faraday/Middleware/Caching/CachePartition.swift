import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How ``HTTPCache`` keeps users apart (RFC 9111 §3.5, and browsers' partitioned caches): the
/// credentials a request carries (`Authorization`, `Proxy-Authorization`, `Cookie`, and the
/// handler's ``HTTPCache/Handler/additionalCredentialFields``) are part of the key of what it
/// stores and of the request it may wait for, so that two users never share an entry or a
/// flight. They are keyed in as a digest (HMAC-SHA256 under the store's secret key, or the
/// process's), as are the values of those fields that a `Vary` names, so that neither the keys
/// nor a store's files hold a token or a cookie. A request without credentials is keyed by its
/// URL alone.
struct CachePartition: Sendable {
    /// The fields that always say who the user is.
    static let standardFields: [HTTPField.Name] = [.authorization, .proxyAuthorization, .cookie]
    /// The key of the stores that keep none of their own: new in each process.
    static let processKey = HMACSHA256.randomKey()

    /// The credential fields, each once.
    let fields: [HTTPField.Name]
    private let names: Set<String>
    private let mac: HMACSHA256

    init(additionalFields: [HTTPField.Name], key: [UInt8]) {
        var names = Set<String>()
        fields = (Self.standardFields + additionalFields).filter { names.insert($0.canonicalName).inserted }
        self.names = names
        mac = HMACSHA256(key: key)
    }

    /// Whether the field named `name` (lowercased) carries credentials.
    func isCredential(_ name: String) -> Bool { names.contains(name) }

    /// Whether `request` carries credentials.
    func hasCredentials(_ request: Request) -> Bool { fields.contains { request.headers.contains($0) } }

    /// The store's key for `request`: its URL's (``CacheEntry/key(for:)``), followed, when it
    /// carries credentials, by their digest.
    func key(for request: Request) -> String {
        key(for: request.url, request)
    }

    /// The key for `url` with the credentials of `request` (a `Location` of its response).
    func key(for url: URL, _ request: Request) -> String {
        let key = CacheEntry.key(for: url)
        guard let credentials = digest(of: request) else { return key }
        return key + " credentials=" + credentials
    }

    /// The digest of every value of every credential field of `request`; `nil` without any.
    private func digest(of request: Request) -> String? {
        guard hasCredentials(request) else { return nil }
        var message: [UInt8] = []
        for field in fields {
            let values = request.headers[values: field]
            guard !values.isEmpty else { continue }
            Self.append(field.canonicalName, to: &message)
            Self.append(String(values.count), to: &message)
            for value in values { Self.append(value, to: &message) }
        }
        return Self.hex(mac.code(for: message))
    }

    /// What an entry keeps of a credential field that its response's `Vary` names: the digest
    /// of its value as the cache compares them (joined and normalised), never the value.
    func digest(_ value: String, of name: String) -> String {
        var message: [UInt8] = []
        Self.append(name, to: &message)
        Self.append(value, to: &message)
        return "hmac-sha256:" + Self.hex(mac.code(for: message))
    }

    /// `text`'s length (4 bytes) and bytes: so that no two lists of texts make one message.
    private static func append(_ text: String, to message: inout [UInt8]) {
        let bytes = Array(text.utf8)
        let count = UInt32(truncatingIfNeeded: bytes.count)
        message += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: count >> $0) }
        message += bytes
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
