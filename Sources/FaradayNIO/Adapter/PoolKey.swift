#if NIO
import Faraday
import Foundation
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
    var addressBytes: [UInt8]? {
        switch try? SocketAddress(ipAddress: bareHost, port: 0) {
        case .v4(let address)?: withUnsafeBytes(of: address.address.sin_addr) { Array($0) }
        case .v6(let address)?: withUnsafeBytes(of: address.address.sin6_addr) { Array($0) }
        default: nil
        }
    }
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
#endif
