#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The hosts that go direct rather than through a proxy, written as `no_proxy` is for curl 7.88:
/// entries separated by commas, spaces or tabs in any mix (`localhost, .internal.example 10.0.0.0/8`).
///
/// - `*` as the whole list, nothing around it: every host goes direct. Anywhere else `*` matches
///   nothing, as in curl (`*,example.com` or ` *` is not every host).
/// - A name (`example.com`, `.example.com`): that host and every host below it
///   (`api.example.com`, not `notexample.com`); one leading and one trailing dot of the entry and
///   one trailing dot of the host are ignored; case is ignored.
/// - An IP address (`10.1.2.3`, `::1`) or a CIDR range (`10.0.0.0/8`, `fd00::/8`): hosts that are
///   that address or in that range, compared as addresses (`0:0::1` is `::1`). A prefix that is not
///   a number of bits for the family (`/33`, `/8a`) makes the entry match nothing.
/// - A host that is an IP address is matched by address and range entries only, and a host name by
///   name entries only: names are not resolved.
///
/// Where Faraday parts from curl (the table is in <doc:Proxies#Where-Faraday-and-curl-differ>):
/// - An entry with a port (`example.com:8080`, `10.0.0.0/8:80`, `[::1]:8443`), as Go and Python
///   read it, applies to that port only; curl never matches such an entry.
/// - `/0` is every address of the family; curl reads it as the address alone.
/// - An IPv6 entry may be bracketed (`[::1]`, `[fd00::]/8`); curl never matches a bracketed entry.
/// - IPv6 hosts are compared as addresses, as curl 8.18 and later do; curl 7.88 compared them as
///   text, so that `::1` matched `[::1]` but `::1/128` and `fd00::/8` matched nothing.
public struct NoProxy: Sendable, Hashable, ExpressibleByStringLiteral {
    struct Network: Hashable {
        let bytes: [UInt8]
        let prefix: Int
    }

    struct Entry: Hashable {
        /// The entry as a name: one trailing dot, then one leading dot, removed (as curl does).
        let name: String
        /// The entry as an address or range, `nil` when it is neither.
        let network: Network?
        let port: Int?
    }

    let matchesEverything: Bool
    let entries: [Entry]

    /// The list as `no_proxy` writes it.
    public init(_ list: String = "") {
        matchesEverything = list == "*"
        entries = list.unicodeScalars.split { $0 == "," || $0 == " " || $0 == "\t" }
            .compactMap { Self.entry(String(String.UnicodeScalarView($0))) }
    }

    /// The list as `no_proxy` writes it.
    public init(stringLiteral list: String) { self.init(list) }

    /// Whether `host` (on `port`) goes direct. `host` is a URL's host: a name, an IPv4 address, or
    /// an IPv6 address with or without brackets and zone (`[fe80::1%25en0]`).
    public func matches(host: String, port: Int) -> Bool {
        if matchesEverything { return true }
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.contains(":"), let zone = host.firstIndex(of: "%") { host = String(host[..<zone]) }
        let candidates = entries.filter { $0.port == nil || $0.port == port }
        if let address = Self.ipBytes(host) {
            return candidates.contains { $0.network.map { Self.contains($0, address) } ?? false }
        }
        if host.hasSuffix(".") { host.removeLast() }
        guard !host.isEmpty else { return false }
        return candidates.contains { host == $0.name || host.hasSuffix("." + $0.name) }
    }

    private static func entry(_ token: String) -> Entry? {
        var text = token.lowercased()
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
        var name = Substring(text)
        if name.hasSuffix(".") { name.removeLast() }
        if name.hasPrefix(".") { name.removeFirst() }
        let network = network(text)
        guard !name.isEmpty || network != nil else { return nil }  // `.` alone names no host
        return Entry(name: String(name), network: network, port: port)
    }

    /// `10.0.0.0/8`, `fd00::/8`, or an address alone (every bit counts).
    private static func network(_ text: String) -> Network? {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let bytes = ipBytes(String(parts[0])) else { return nil }
        guard parts.count == 2 else { return Network(bytes: bytes, prefix: bytes.count * 8) }
        // Digits only, as curl 8.18's `curlx_str_number` (7.88's `atoi` also took `/8a` as 8).
        guard !parts[1].isEmpty, parts[1].utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let prefix = Int(parts[1]), prefix <= bytes.count * 8
        else { return nil }
        return Network(bytes: bytes, prefix: prefix)
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

    private static func contains(_ network: Network, _ address: [UInt8]) -> Bool {
        guard network.bytes.count == address.count else { return false }
        var remaining = network.prefix
        for (left, right) in zip(network.bytes, address) where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            guard left & mask == right & mask else { return false }
            remaining -= bits
        }
        return true
    }
}
