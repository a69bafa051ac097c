import Foundation

/// The hosts that go direct rather than through a proxy, written as `no_proxy` is for curl:
/// a comma-separated list of entries, blanks around them ignored.
///
/// - `*` alone: every host goes direct.
/// - A name (`example.com`, `.example.com`): that host and every host below it
///   (`api.example.com`, not `notexample.com`); leading and trailing dots are ignored; case is
///   ignored. A name never matches an IP address, nor the other way round (names are not
///   resolved).
/// - An IP address (`10.1.2.3`, `::1`) or a CIDR range (`10.0.0.0/8`, `fd00::/8`): hosts that are
///   that address or in that range (`/0` is every address of the family, where curl reads it as
///   an exact match).
/// - With a port (`example.com:8080`, `[::1]:8443`, `10.0.0.0/8:80`, a Go and Python extension
///   curl does not have): the entry applies to that port only.
public struct NoProxy: Sendable, Hashable, ExpressibleByStringLiteral {
    enum Address: Hashable {
        case name(String)
        case ip([UInt8], prefix: Int)
    }

    struct Entry: Hashable {
        let address: Address
        let port: Int?
    }

    let matchesEverything: Bool
    let entries: [Entry]

    /// The list as `no_proxy` writes it.
    public init(_ list: String = "") {
        let items = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        matchesEverything = list.trimmingCharacters(in: .whitespaces) == "*"
        entries = items.compactMap(Self.entry)
    }

    /// The list as `no_proxy` writes it.
    public init(stringLiteral list: String) { self.init(list) }

    /// Whether `host` (on `port`) goes direct.
    public func matches(host: String, port: Int) -> Bool {
        if matchesEverything { return true }
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if let zone = host.firstIndex(of: "%"), host.contains(":") { host = String(host[..<zone]) }  // fe80::1%en0
        while host.hasSuffix(".") { host.removeLast() }
        let address = Self.ipBytes(host)
        return entries.contains { entry in
            if let entryPort = entry.port, entryPort != port { return false }
            switch (entry.address, address) {
            case (.name(let name), nil): return host == name || host.hasSuffix("." + name)
            case (.ip(let network, let prefix), let bytes?): return Self.contains(network, prefix: prefix, bytes)
            default: return false
            }
        }
    }

    private static func entry(_ text: String) -> Entry? {
        var text = text.lowercased()
        var port: Int?
        // A port: after `]` for a bracketed IPv6 address, else after the one colon of a name or IPv4.
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            // `[::1]`, `[::1]:8443`, `[fd00::]/8`, `[fd00::]/8:443`
            var rest = text[text.index(after: close)...]
            var prefix = ""
            if rest.hasPrefix("/") {
                let end = rest.firstIndex(of: ":") ?? rest.endIndex
                prefix = String(rest[..<end])
                rest = rest[end...]
            }
            if rest.hasPrefix(":") {
                guard let number = Int(rest.dropFirst()) else { return nil }
                port = number
            } else if !rest.isEmpty {
                return nil
            }
            text = String(text[text.index(after: text.startIndex)..<close]) + prefix
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.lastIndex(of: ":") {
            guard let number = Int(text[text.index(after: colon)...]) else { return nil }
            port = number
            text = String(text[..<colon])
        }
        if let port, !(0...65535).contains(port) { return nil }
        let parts = text.split(separator: "/", maxSplits: 1).map(String.init)
        if let bytes = ipBytes(parts.first ?? "") {
            let bits = bytes.count * 8
            guard parts.count == 1 || Int(parts[1]).map({ (0...bits).contains($0) }) == true else { return nil }
            return Entry(address: .ip(bytes, prefix: parts.count == 2 ? Int(parts[1]) ?? bits : bits), port: port)
        }
        guard parts.count == 1 else { return nil }
        let name = text.trimmingCharacters(in: CharacterSet(charactersIn: "."))
        guard !name.isEmpty else { return nil }
        return Entry(address: .name(name), port: port)
    }

    /// The bytes of an IPv4 or IPv6 address, or `nil` for anything else.
    static func ipBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if text.contains("."), !text.contains(":"), inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if text.contains(":"), inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }

    private static func contains(_ network: [UInt8], prefix: Int, _ address: [UInt8]) -> Bool {
        guard network.count == address.count else { return false }
        var remaining = prefix
        for (left, right) in zip(network, address) where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            guard left & mask == right & mask else { return false }
            remaining -= bits
        }
        return true
    }
}
