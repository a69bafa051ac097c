#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Which proxy each request uses: one for `http://` URLs, one for `https://` URLs, and the hosts
/// that go direct (``NoProxy``). Set it on ``RequestOptions/proxy`` (per connection or per
/// request); nothing is read from the environment unless you ask with ``fromEnvironment(_:)``.
///
/// ```swift
/// var options = RequestOptions()
/// options.proxy = ProxyConfiguration(
///     all: .http(host: "proxy.corp.example", port: 3128, username: "me", password: secret),
///     noProxy: "localhost, .internal.example, 10.0.0.0/8"
/// )
/// ```
public struct ProxyConfiguration: Sendable, Hashable {
    /// The proxy for `http://` (and `ws://`) URLs.
    public var http: Proxy?
    /// The proxy for `https://` (and `wss://`) URLs.
    public var https: Proxy?
    /// The hosts that never go through a proxy.
    public var noProxy: NoProxy

    /// A configuration with a proxy per scheme.
    public init(http: Proxy? = nil, https: Proxy? = nil, noProxy: NoProxy = NoProxy()) {
        self.http = http
        self.https = https
        self.noProxy = noProxy
    }

    /// One proxy for every URL, except the hosts of `noProxy`.
    public init(all proxy: Proxy, noProxy: NoProxy = NoProxy()) {
        self.init(http: proxy, https: proxy, noProxy: noProxy)
    }

    /// The proxy `url` goes through, or `nil` to go direct.
    public func proxy(for url: URL) -> Proxy? {
        guard let host = url.host else { return nil }
        let scheme = url.scheme?.lowercased()
        let proxy = scheme == "https" || scheme == "wss" ? https : http
        guard let proxy,
            !noProxy.matches(host: host, port: url.port ?? (scheme == "https" || scheme == "wss" ? 443 : 80))
        else { return nil }
        return proxy
    }

    /// The configuration curl would take from `environment` (the process's by default), or `nil`
    /// when it names no proxy:
    ///
    /// - `http://` URLs: `http_proxy` (lower case only: a CGI program gets the request's `Proxy:`
    ///   header as `HTTP_PROXY`, so curl never reads that one), else `all_proxy`, `ALL_PROXY`.
    /// - `https://` URLs: `https_proxy`, `HTTPS_PROXY`, else `all_proxy`, `ALL_PROXY`.
    /// - Hosts that go direct: `no_proxy`, else `NO_PROXY` (see ``NoProxy``).
    ///
    /// An empty variable counts as absent. Every proxy curl would use is kept, with the variable
    /// it came from (``Proxy/variable``): an HTTPS or SOCKS4 proxy, or a SOCKS5 proxy with
    /// credentials, which no adapter can use yet, then fails each request that would go through it
    /// with ``FaradayError/Code/unsupportedOption`` naming the variable, and never sends it direct;
    /// so does a value that is no proxy URL (``Proxy/Kind/unreadable``), as curl fails on it.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    )
        -> ProxyConfiguration?
    {
        /// The first of `names` set to more than blanks, and its value.
        func first(_ names: String...) -> (name: String, value: String)? {
            names.lazy.compactMap { name in environment[name].map { (name, $0) } }.first {
                !$0.value.trimmingWhitespace().isEmpty
            }
        }
        /// The proxy a variable names, marked with its name; an unreadable one rather than none.
        func proxy(_ variable: (name: String, value: String)?) -> Proxy? {
            guard let variable else { return nil }
            guard var proxy = Proxy(url: variable.value) else { return .unreadable(from: variable.name) }
            proxy.variable = variable.name
            return proxy
        }
        let all = proxy(first("all_proxy", "ALL_PROXY"))
        let http = proxy(first("http_proxy")) ?? all
        let https = proxy(first("https_proxy", "HTTPS_PROXY")) ?? all
        guard http != nil || https != nil else { return nil }
        return ProxyConfiguration(
            http: http,
            https: https,
            noProxy: NoProxy(first("no_proxy", "NO_PROXY")?.value ?? "")
        )
    }
}
