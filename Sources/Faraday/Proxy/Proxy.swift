import Foundation

/// A proxy server a request goes through: an HTTP proxy (a `CONNECT` tunnel to the origin, TLS
/// still end to end with it) or a SOCKS5 proxy, with optional credentials.
///
/// The credentials go to the proxy only (`Proxy-Authorization`), never to the origin, and the
/// description of a proxy never shows its password.
public struct Proxy: Sendable, Hashable, CustomStringConvertible {
    /// The proxy's protocol.
    public enum Kind: String, Sendable, Hashable {
        /// An HTTP proxy.
        case http
        /// A SOCKS5 proxy; host names are resolved by the proxy.
        case socks5
    }

    /// The proxy's protocol.
    public var kind: Kind
    /// The proxy's host.
    public var host: String
    /// The proxy's port.
    public var port: Int
    /// The user name for `Proxy-Authorization: Basic` (HTTP proxies only).
    public var username: String?
    /// The password for `Proxy-Authorization: Basic`.
    public var password: String?

    /// An HTTP proxy, with Basic credentials when `username` is given.
    public static func http(host: String, port: Int = 1080, username: String? = nil, password: String? = nil) -> Proxy {
        Proxy(kind: .http, host: host, port: port, username: username, password: password)
    }

    /// A SOCKS5 proxy (without authentication).
    public static func socks5(host: String, port: Int = 1080) -> Proxy {
        Proxy(kind: .socks5, host: host, port: port, username: nil, password: nil)
    }

    /// A proxy from a URL as `http_proxy` and curl write it: `http://user:pass@proxy.local:3128`,
    /// `proxy.local:3128` (HTTP assumed), `http://[::1]:3128`, `socks5://proxy.local:1080` or
    /// `socks5h://…` (both resolved by the proxy); without a port, 1080 as curl. `nil` for any other
    /// scheme (`https://` proxies are not supported by the adapters), a URL without a host, a port
    /// out of range, or credentials on a SOCKS proxy (SOCKS5 authentication is not supported: it
    /// would be dropped silently).
    public init?(url text: String) {
        let text = text.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { return nil }
        let withScheme = text.contains("://") ? text : "http://" + text
        guard let components = URLComponents(string: withScheme), var host = components.host, !host.isEmpty,
            let scheme = components.scheme?.lowercased()
        else { return nil }
        switch scheme {
        case "http": kind = .http
        case "socks5", "socks5h": kind = .socks5
        default: return nil
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port = components.port ?? 1080
        guard (1...65535).contains(port) else { return nil }
        // URLComponents has decoded the credentials already.
        guard kind == .http || (components.user == nil && components.password == nil) else { return nil }
        self.host = host
        self.port = port
        self.username = components.user
        self.password = components.password
    }

    private init(kind: Kind, host: String, port: Int, username: String?, password: String?) {
        (self.kind, self.host, self.port, self.username, self.password) = (kind, host, port, username, password)
    }

    /// `http://user:***@proxy.local:3128`: the password never shows.
    public var description: String {
        let user = username.map { "\($0):\(password == nil ? "" : "***")@" } ?? ""
        return "\(kind.rawValue)://\(user)\(address)"
    }

    /// `proxy.local:3128`, `[::1]:3128`: where the proxy is, without credentials.
    public var address: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

extension Proxy: CustomDebugStringConvertible, CustomReflectable {
    /// The ``description``: the password never shows.
    public var debugDescription: String { description }

    /// The fields with the password masked, for `dump` and debuggers.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "kind": kind, "host": host, "port": port, "username": username as Any,
                "password": password == nil ? "nil" : "***",
            ]
        )
    }
}
