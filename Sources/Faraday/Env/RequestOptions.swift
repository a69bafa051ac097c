import Foundation

/// Per-request options. A connection holds defaults; a request may override each.
///
/// Adapters honour every option they can and refuse a request with an option they cannot honour
/// (``FaradayError/Code/unsupportedOption``) before sending anything.
///
/// Options that belong to a middleware live in its folder, as extensions over typed keys
/// (``subscript(_:)``): ``tls`` and ``pinning`` are those of the TLS middleware.
public struct RequestOptions: Sendable {
    /// The deadline for the whole call, from sending to the last byte. `nil`: none.
    public var timeout: Duration?
    /// The time allowed to open the connection (TCP and TLS). `nil`: the adapter's default.
    public var openTimeout: Duration?
    /// The longest wait for the next bytes of the response. `nil`: the adapter's default.
    public var readTimeout: Duration?
    /// The longest wait to send the next bytes of the request. `nil`: the adapter's default.
    public var writeTimeout: Duration?
    /// How ``Request/params`` are written to and read from the query.
    public var paramsEncoder: any ParamsEncoder
    /// The largest response body an adapter buffers (non-streamed responses); larger fails with
    /// ``FaradayError/Code/bodyTooLarge``.
    public var maxBufferedBodySize: Int
    /// Stream the response as frames (one completion each) instead of buffering it. `nil`: buffer.
    public var streaming: Streaming?
    /// The origins (scheme, host and port; any URL of the origin will do) that credentials may
    /// go to. A connection puts its base URL's origin first and adds the ones of its own
    /// options; empty means any origin (a connection without a base URL that lists none).
    /// ``Authorization``, ``TokenRefresh``, endpoints' authentication and the connection's own
    /// credential headers leave out every request to another origin.
    public var credentialOrigins: [String] = []
    /// The proxies requests go through (``ProxyConfiguration``); `nil` goes direct. Faraday reads
    /// nothing from the environment unless you set ``ProxyConfiguration/fromEnvironment(_:)``
    /// here (``URLSessionAdapter`` is the exception: see <doc:Proxies>).
    public var proxy: ProxyConfiguration?
    private var extensions = Extensions()

    /// The default limit for buffered bodies: 64 MiB.
    public static let defaultMaxBufferedBodySize = 64 * 1024 * 1024

    /// Creates options.
    public init(
        timeout: Duration? = nil,
        openTimeout: Duration? = nil,
        readTimeout: Duration? = nil,
        writeTimeout: Duration? = nil,
        paramsEncoder: any ParamsEncoder = NestedParamsEncoder(),
        maxBufferedBodySize: Int = RequestOptions.defaultMaxBufferedBodySize,
        streaming: Streaming? = nil
    ) {
        self.timeout = timeout
        self.openTimeout = openTimeout
        self.readTimeout = readTimeout
        self.writeTimeout = writeTimeout
        self.paramsEncoder = paramsEncoder
        self.maxBufferedBodySize = maxBufferedBodySize
        self.streaming = streaming
    }

    /// A typed option kept by a middleware, keyed by a type of its own.
    public subscript<Key: EnvKey>(_ key: Key.Type) -> Key.Value? {
        get { extensions[key] }
        set { extensions[key] = newValue }
    }
}
