#if URLSession
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Security)
import Security
#endif

// URLSessionAdapter's sessions: the shared one, and one per set of TLS options and pinned host.
extension URLSessionAdapter {
    /// What a request's session must match: its TLS options, its pinned host and rule, and
    /// whether it needs a connection no request used before (see ``needsFreshConnection(_:)``).
    struct SessionKey: Hashable {
        let tls: TLSOptions
        let pinnedHost: String?
        let rule: PinningRule?
        var freshConnections = false
    }

    /// Whether `request` must go on a connection of its own, closed after it (`Connection: close`,
    /// in a session whose connections are never reused): a request with a body, on Linux.
    ///
    /// When a reused connection turns out closed as a request goes out (a server's keep-alive
    /// timeout), libcurl sends the request again on a new one, and asks FoundationNetworking to
    /// rewind the body first. FoundationNetworking cannot rewind a body given as data or a file
    /// (`_NativeProtocol.seekInputStream`): the request goes again with its `Content-Length` and
    /// no body, and waits for its timeout; with a session delegate that answers
    /// `needNewBodyStream`, the process stops (`NSUnimplemented`). A body given as a stream is
    /// rewound, but libcurl frames it chunked beside its `Content-Length`. A request with a body on
    /// a connection of its own never meets a connection closed under it; it costs a new connection
    /// (and TLS handshake) per request with a body. Apple's URLSession rewinds bodies itself.
    static func needsFreshConnection(_ request: Request) -> Bool {
        #if canImport(FoundationNetworking)
        request.body.bytesInMemory?.isEmpty != true
        #else
        false
        #endif
    }

    /// A copy of `configuration` with every store of URLSession's own turned off.
    static func stateless(_ configuration: URLSessionConfiguration) -> URLSessionConfiguration {
        let copy = configuration.copy() as? URLSessionConfiguration ?? .ephemeral
        copy.httpCookieStorage = nil
        copy.httpShouldSetCookies = false
        copy.httpCookieAcceptPolicy = .never
        copy.urlCache = nil
        copy.requestCachePolicy = .reloadIgnoringLocalCacheData
        copy.urlCredentialStorage = nil
        return copy
    }

    static func makeSession(
        _ configuration: URLSessionConfiguration,
        delegate: Delegate,
        minimumVersion: TLSProtocolVersion = .v1_2
    ) -> URLSession {
        #if canImport(Security) && canImport(CryptoKit)
        let configuration = withMinimumVersion(configuration, minimumVersion)
        #endif
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "Faraday.URLSessionAdapter"
        return URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
    }

    #if canImport(Security) && canImport(CryptoKit)
    /// `configuration`, or a copy of it accepting no TLS version below `minimum`: URLSession's own
    /// default minimum is TLS 1.0, TLSOptions promise 1.2 (a higher one already set is kept).
    private static func withMinimumVersion(
        _ configuration: URLSessionConfiguration,
        _ minimum: TLSProtocolVersion
    ) -> URLSessionConfiguration {
        let wanted: tls_protocol_version_t = minimum == .v1_3 ? .TLSv13 : .TLSv12
        guard configuration.tlsMinimumSupportedProtocolVersion.rawValue < wanted.rawValue else { return configuration }
        let copy = configuration.copy() as? URLSessionConfiguration ?? configuration
        copy.tlsMinimumSupportedProtocolVersion = wanted
        return copy
    }
    #endif

    /// The key of `request`'s session, or `nil` for the shared one (default TLS options, no pin,
    /// connections reused).
    static func sessionKey(for request: Request) -> SessionKey? {
        let tls = request.options.tls
        // Most requests have no pinning policy: no host to look at, nothing to lowercase.
        let rule = request.options.pinning.flatMap { policy in request.url.host.flatMap(policy.activeRule(for:)) }
        let fresh = needsFreshConnection(request)
        guard rule != nil || !tls.isDefault || fresh else { return nil }
        return SessionKey(
            tls: tls,
            pinnedHost: rule == nil ? nil : request.url.host?.lowercased(),
            rule: rule,
            freshConnections: fresh
        )
    }

    /// The session for `request`: the shared one, or the one of its TLS options and pinned host.
    func session(for request: Request) -> URLSession {
        guard let key = Self.sessionKey(for: request) else { return session }
        return keyedSessions.withLock { sessions in
            if let keyed = sessions[key] { return keyed }
            let keyed = Self.makeSession(
                session.configuration,
                delegate: delegate,
                minimumVersion: key.tls.minimumVersion
            )
            sessions[key] = keyed
            return keyed
        }
    }
}
#endif
