#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
        /// An HTTP proxy reached over TLS (`https://` in `https_proxy`). No adapter speaks TLS to
        /// a proxy yet: a request that would use one fails with
        /// ``FaradayError/Code/unsupportedOption`` rather than go direct.
        case https
        /// A SOCKS4 or SOCKS4a proxy. No adapter speaks SOCKS4: refused as ``https`` is.
        case socks4
        /// A SOCKS5 proxy; host names are resolved by the proxy.
        case socks5
        /// A variable's value that names no proxy Faraday or curl can use (`foo://p`, a port out of
        /// range): requests that would use it fail, as curl's do, rather than go direct.
        case unreadable
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
    /// The environment variable the proxy was read from (`https_proxy`…), for the error that
    /// refuses a proxy an adapter cannot use; `nil` for a proxy made in code.
    public internal(set) var variable: String?

    /// An HTTP proxy, with Basic credentials when `username` is given.
    public static func http(host: String, port: Int = 1080, username: String? = nil, password: String? = nil) -> Proxy {
        Proxy(kind: .http, host: host, port: port, username: username, password: password)
    }

    /// A SOCKS5 proxy, with user name and password authentication (RFC 1929) when `username` is
    /// given (which no adapter supports yet: such a request fails with
    /// ``FaradayError/Code/unsupportedOption`` rather than send without it).
    public static func socks5(
        host: String,
        port: Int = 1080,
        username: String? = nil,
        password: String? = nil
    )
        -> Proxy
    {
        Proxy(kind: .socks5, host: host, port: port, username: username, password: password)
    }

    /// A proxy from a URL as `http_proxy` and curl write it: `http://user:pass@proxy.local:3128`,
    /// `proxy.local:3128` (HTTP assumed), `http://[::1]:3128`, `https://proxy.local`,
    /// `socks4://`, `socks4a://`, `socks5://user:pass@proxy.local:1080` or `socks5h://…` (both
    /// resolved by the proxy); without a port, 1080 as curl (443 for `https://`). Every proxy curl
    /// would use is read, so that one an adapter cannot use is refused with
    /// ``FaradayError/Code/unsupportedOption`` and never skipped. `nil` for a scheme curl does not
    /// know, a URL without a host or a port out of range.
    public init?(url text: String) {
        let text = text.trimmingWhitespace()
        guard !text.isEmpty else { return nil }
        let withScheme = text.contains("://") ? text : "http://" + text
        guard let components = URLComponents(string: withScheme), var host = components.host, !host.isEmpty,
            let scheme = components.scheme?.lowercased()
        else { return nil }
        switch scheme {
        case "http": kind = .http
        case "https": kind = .https
        case "socks4", "socks4a": kind = .socks4
        case "socks5", "socks5h": kind = .socks5
        default: return nil
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port = components.port ?? (kind == .https ? 443 : 1080)
        guard (1...65535).contains(port) else { return nil }
        // URLComponents has decoded the credentials already.
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
        if kind == .unreadable { return "an unreadable proxy URL" }
        let user = username.map { "\($0):\(password == nil ? "" : "***")@" } ?? ""
        return "\(kind.rawValue)://\(user)\(address)"
    }

    /// `proxy.local:3128`, `[::1]:3128`: where the proxy is, without credentials.
    public var address: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

extension Proxy {
    /// Two proxies are equal when they are the same server with the same credentials, wherever
    /// they were read from.
    public static func == (lhs: Proxy, rhs: Proxy) -> Bool {
        (lhs.kind, lhs.host, lhs.port, lhs.username, lhs.password)
            == (rhs.kind, rhs.host, rhs.port, rhs.username, rhs.password)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(host)
        hasher.combine(port)
        hasher.combine(username)
        hasher.combine(password)
    }
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
                "password": password == nil ? "nil" : "***", "variable": variable as Any,
            ]
        )
    }
}

extension Proxy {
    /// An unreadable proxy, for a variable whose value is not a proxy URL.
    static func unreadable(from variable: String) -> Proxy {
        var proxy = Proxy(kind: .unreadable, host: "", port: 0, username: nil, password: nil)
        proxy.variable = variable
        return proxy
    }

    /// Whether AsyncHTTPClient can connect through this proxy: plain HTTP, or SOCKS5 without
    /// authentication.
    package var isPlainHTTPOrOpenSOCKS5: Bool { kind == .http || (kind == .socks5 && username == nil) }

    /// The error that refuses this proxy for `request` on `adapter`: a request never goes direct,
    /// nor without the proxy's credentials, when a proxy was asked for.
    package func refusal(by adapter: String, for request: Request, hint: String = "") -> FaradayError {
        let what: String
        switch kind {
        case .https: what = "an HTTPS proxy (TLS to the proxy)"
        case .socks4: what = "a SOCKS4 proxy"
        case .socks5 where username != nil: what = "a SOCKS5 proxy with a user name and password"
        case .unreadable: what = "a proxy whose URL it cannot read"
        case .http, .socks5: what = "a proxy"
        }
        let source = variable.map { ", named by \($0)" } ?? ""
        return FaradayError(
            .unsupportedOption,
            "\(adapter) cannot connect through \(what) (\(self)\(source)); the request was not sent, rather than go direct.\(hint)",
            method: request.method,
            url: request.url
        )
    }
}
