#if NIO
import Faraday
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

// What a request asks of a connection: the pool it belongs to, its target and its `Host`.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
extension NIOAdapter {
    /// Where a request's connection goes, and the pin check a new one makes.
    func poolKey(for request: Request) throws(FaradayError) -> (PoolKey, ConnectionPinVerifier?) {
        let url = request.url
        let secure: Bool
        switch url.scheme?.lowercased() {
        case "https": secure = true
        case "http": secure = false
        default:
            throw FaradayError(.invalidURL, "NIOAdapter speaks http and https only.", method: request.method, url: url)
        }
        guard let host = url.host, !host.isEmpty else {
            throw FaradayError(.invalidURL, "The URL has no host.", method: request.method, url: url)
        }
        let pinning = try PinnedHost.forRequest(request)
        let proxy = request.options.proxy?.proxy(for: url)
        // HTTP proxies, and SOCKS5 with or without a user name and password.
        if let proxy, proxy.kind != .http, proxy.kind != .socks5 {
            throw proxy.refusal(by: "NIOAdapter", for: request)
        }
        let key = PoolKey(
            secure: secure,
            host: host,
            port: url.port ?? (secure ? 443 : 80),
            tls: request.options.tls.isDefault ? nil : request.options.tls,
            pinned: pinning?.0,
            proxy: proxy
        )
        return (key, pinning?.1)
    }

    /// The request target: the path and query, as sent (origin form).
    static func target(of url: URL) -> String {
        let path = url.path(percentEncoded: true)
        var target = path.isEmpty ? "/" : path
        if let query = url.query(percentEncoded: true) { target += "?" + query }
        return target
    }

    /// The `Host` field: the host, with the port when it is not the scheme's.
    static func hostField(_ key: PoolKey) -> String {
        key.port == (key.secure ? 443 : 80) ? key.bracketedHost : "\(key.bracketedHost):\(key.port)"
    }

    /// Methods whose requests say `Content-Length: 0` when they have no body (RFC 9110 §8.6: a
    /// method that expects a body).
    static func sendsLength(_ method: HTTPRequest.Method) -> Bool {
        method == .post || method == .put || method == .patch
    }
}
#endif
