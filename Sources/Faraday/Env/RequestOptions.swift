#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Per-request options. A connection holds defaults; a request may override each.
///
/// Adapters honour every option they can and refuse a request with an option they cannot honour
/// (``FaradayError/Code/unsupportedOption``) before sending anything.
///
/// Options that belong to a middleware live in its folder, as extensions over typed keys
/// (``subscript(_:)``): ``tls`` and ``pinning`` are those of the TLS middleware.
public struct RequestOptions: Sendable {
    /// The deadline for the whole call, from sending to the last byte. `nil`: none.
    public var timeout: Duration? {
        get { box.value.timeout }
        set { values.timeout = newValue }
    }
    /// The time allowed to open the connection (TCP and TLS). `nil`: the adapter's default.
    public var openTimeout: Duration? {
        get { box.value.openTimeout }
        set { values.openTimeout = newValue }
    }
    /// The longest wait for the next bytes of the response, buffered or streamed. `nil`: the
    /// adapter's default, ``defaultReadTimeout`` on both built-in adapters, so a server that
    /// accepts and then sends nothing never holds a call forever. A stream that may stay silent
    /// longer (a download from a slow origin, events without heartbeats) sets a longer one, as does
    /// one whose consumer may hold it back longer (`AsyncHTTPClientAdapter` counts that wait too); a
    /// stream's wait between frames is ``Streaming/idleTimeout``.
    public var readTimeout: Duration? {
        get { box.value.readTimeout }
        set { values.readTimeout = newValue }
    }
    /// The longest wait to send the next bytes of the request. `nil`: the adapter's default.
    public var writeTimeout: Duration? {
        get { box.value.writeTimeout }
        set { values.writeTimeout = newValue }
    }
    /// The read timeout of a call that sets none: 60 seconds, URLSession's own default (OkHttp
    /// waits 10 s, curl and AsyncHTTPClient forever). ``URLSessionAdapter`` takes it from its
    /// session's `timeoutIntervalForRequest`, `AsyncHTTPClientAdapter` from its configuration's
    /// `readTimeout`; both are this by default.
    public static let defaultReadTimeout: Duration = .seconds(60)

    /// How ``Request/params`` are written to and read from the query.
    public var paramsEncoder: any ParamsEncoder {
        get { box.value.paramsEncoder }
        set { values.paramsEncoder = newValue }
    }
    /// The largest response body an adapter buffers (non-streamed responses); larger fails with
    /// ``FaradayError/Code/bodyTooLarge``.
    public var maxBufferedBodySize: Int {
        get { box.value.maxBufferedBodySize }
        set { values.maxBufferedBodySize = newValue }
    }
    /// Stream the response as frames (one completion each) instead of buffering it. `nil`: buffer.
    public var streaming: Streaming? {
        get { box.value.streaming }
        set { values.streaming = newValue }
    }
    /// The origins (scheme, host and port; any URL of the origin will do) that credentials may
    /// go to. A connection puts its base URL's origin first and adds the ones of its own
    /// options; empty means any origin (a connection without a base URL that lists none).
    /// ``Authorization``, ``TokenRefresh``, endpoints' authentication and the connection's own
    /// credential headers leave out every request to another origin.
    public var credentialOrigins: [String] {
        get { box.value.credentialOrigins }
        set { values.credentialOrigins = newValue }
    }
    /// The proxies requests go through (``ProxyConfiguration``); `nil` goes direct. Faraday reads
    /// nothing from the environment unless you set ``ProxyConfiguration/fromEnvironment(_:)``
    /// here (``URLSessionAdapter`` is the exception: see <doc:Proxies>).
    public var proxy: ProxyConfiguration? {
        get { box.value.proxy }
        set { values.proxy = newValue }
    }

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
        box = Boxed(
            Values(
                timeout: timeout,
                openTimeout: openTimeout,
                readTimeout: readTimeout,
                writeTimeout: writeTimeout,
                paramsEncoder: paramsEncoder,
                maxBufferedBodySize: maxBufferedBodySize,
                streaming: streaming
            )
        )
    }

    /// A typed option kept by a middleware, keyed by a type of its own.
    public subscript<Key: EnvKey>(_ key: Key.Type) -> Key.Value? {
        get { box.value.extensions[key] }
        set { values.extensions[key] = newValue }
    }

    // Options travel with every request and every copy of its env, and change rarely (a
    // connection's defaults, a `configure` closure): a copy is one reference rather than some
    // 370 bytes and a dozen references.
    private var box: Boxed<Values>

    private var values: Values {
        get { box.value }
        set { box = Boxed(newValue) }
    }

    private struct Values: Sendable {
        var timeout: Duration?
        var openTimeout: Duration?
        var readTimeout: Duration?
        var writeTimeout: Duration?
        var paramsEncoder: any ParamsEncoder
        var maxBufferedBodySize: Int
        var streaming: Streaming?
        var credentialOrigins: [String] = []
        var proxy: ProxyConfiguration?
        var extensions = Extensions()
    }
}

extension RequestOptions: CustomReflectable {
    /// The options' fields, as `print` and `dump` show a plain struct's.
    public var customMirror: Mirror {
        Mirror(self, children: Mirror(reflecting: box.value).children, displayStyle: .struct)
    }
}
