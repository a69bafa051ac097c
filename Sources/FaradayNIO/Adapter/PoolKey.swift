#if NIO
import Faraday
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
import NIOCore
import NIOSSL

/// Where a connection goes and how: connections of one key are interchangeable, so a pool keeps
/// them together.
struct PoolKey: Hashable, Sendable {
    /// `https`.
    let secure: Bool
    let host: String
    let port: Int
    /// The request's TLS options; `nil` for the defaults (most requests), cheaper to hash.
    let tls: TLSOptions?
    let pinned: PinnedHost?
    let proxy: Proxy?

    /// The host without the brackets of an IPv6 literal (Foundation's `URL.host` has none).
    var bareHost: String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    /// The host as an authority writes it: an IPv6 literal in brackets.
    var bracketedHost: String {
        bareHost.utf8.contains(UInt8(ascii: ":")) ? "[\(bareHost)]" : host
    }

    /// The host's address bytes (4 or 16), as a certificate's `iPAddress` name holds them, when
    /// it is an IP literal; `nil` for a name.
    var addressBytes: [UInt8]? { ipLiteralBytes(bareHost) }
}

/// The TLS context of a key's connections, and the address (if any) those connections check
/// the certificate against themselves.
///
/// NIOSSL checks an IP-literal origin's certificate against the address of the peer it is
/// connected to, which through a tunnel is the proxy's: a certificate naming the proxy's address
/// would pass, and the origin's own would fail. For such a key, NIOSSL checks the chain only and
/// the connection checks that the certificate names the origin's address.
struct TLSContext: Sendable {
    let context: NIOSSLContext
    /// The origin's address, which the certificate must name; `nil` when NIOSSL checks the names.
    let checkedAddress: [UInt8]?

    init(_ configuration: TLSConfiguration, for key: PoolKey) throws {
        var configuration = configuration
        checkedAddress =
            key.proxy != nil && configuration.certificateVerification == .fullVerification ? key.addressBytes : nil
        if checkedAddress != nil { configuration.certificateVerification = .noHostnameVerification }
        context = try NIOSSLContext(configuration: configuration)
    }
}

/// The 4 or 16 bytes of an IPv4 or IPv6 literal, in network order (`inet_pton`); `nil` for
/// anything else.
func ipLiteralBytes(_ host: String) -> [UInt8]? {
    var v4 = [UInt8](repeating: 0, count: 4)
    if inet_pton(AF_INET, host, &v4) == 1 { return v4 }
    var v6 = [UInt8](repeating: 0, count: 16)
    if inet_pton(AF_INET6, host, &v6) == 1 { return v6 }
    return nil
}
#endif
