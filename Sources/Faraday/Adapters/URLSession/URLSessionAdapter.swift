#if URLSession
import Foundation
import HTTPTypes

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An adapter on Foundation's `URLSession`, available wherever Foundation is.
///
/// ```swift
/// let connection = try Connection(url: "https://api.example.com") { $0.adapter = URLSessionAdapter() }
/// ```
///
/// Responses stream through a `URLSessionDataDelegate`. On Apple platforms a slow consumer suspends
/// the task until it catches up. On Linux FoundationNetworking can neither pause a transfer nor
/// hold curl back: a consumer that falls more than `maxBufferedBodySize` bytes behind fails the
/// call with ``FaradayError/Code/bodyTooLarge``, but what Foundation has read and not yet handed
/// to the delegate is out of the adapter's reach (see <doc:Adapters>). Per request it honours
/// ``RequestOptions/timeout`` (a deadline for the whole call), `readTimeout` (the request's idle
/// timeout), `maxBufferedBodySize`, `streaming` and cancellation. It refuses `openTimeout` and
/// `writeTimeout`, which URLSession cannot apply separately, with
/// ``FaradayError/Code/unsupportedOption`` before sending anything. It never follows redirects.
///
/// URLSession's own limits apply: multi-valued response headers arrive joined with `, `, the reason
/// phrase is the standard one, a streamed request body is spooled to a temporary file and uploaded
/// from there, and gzip, deflate and Brotli bodies arrive already decoded with their `Content-Encoding`
/// header removed (URLSession decodes them itself, so ``Decompression``'s limits do not apply: a
/// buffered body is bounded by ``RequestOptions/maxBufferedBodySize``), and on Linux a request
/// with a body goes on a connection of its own (FoundationNetworking cannot send a body again on
/// a new connection when a reused one turns out closed; see <doc:Adapters>). Prefer
/// `AsyncHTTPClientAdapter` on Linux servers.
public final class URLSessionAdapter: Adapter {
    /// The session of requests with the default TLS options and no pin.
    let session: URLSession
    let delegate: Delegate

    /// Calls whose task has not completed yet: 0 once every call ended (the fault campaign checks).
    package var callsInUse: Int { delegate.tasksInFlight }

    /// One session per set of TLS options and pinned host: URLSession checks a server's
    /// certificates once per connection, so a request may reuse only a connection opened under
    /// every TLS option it has (curl CVE-2021-22924, CVE-2022-27782). The default options and no
    /// pin use ``session``.
    let keyedSessions = Locked<[SessionKey: URLSession]>([:])

    /// Creates an adapter with its own session built from `configuration`.
    ///
    /// The adapter keeps no state of its own, whatever `configuration` says: no cookie store, no
    /// URL cache, no credential store (cookies, caching and credentials are the stack's jobs, and
    /// ``Connection/reset()`` clears them there).
    public init(configuration: URLSessionConfiguration = .ephemeral) {
        let delegate = Delegate()
        self.delegate = delegate
        self.session = Self.makeSession(Self.stateless(configuration), delegate: delegate)
    }

    deinit {
        session.invalidateAndCancel()
        for keyed in keyedSessions.withLock({ Array($0.values) }) { keyed.invalidateAndCancel() }
    }

    public func call(_ env: Env) async throws(FaradayError) -> Completions {
        let request = env.request
        let options = request.options
        if options.openTimeout != nil || options.writeTimeout != nil {
            throw FaradayError(
                .unsupportedOption,
                "URLSessionAdapter cannot apply openTimeout or writeTimeout on their own; use readTimeout and timeout, or AsyncHTTPClientAdapter.",
                method: request.method,
                url: request.url
            )
        }
        if (request.method == .get || request.method == .head) && !request.body.isEmpty {
            throw FaradayError(
                .unsupportedOption,
                "URLSession cannot send a body with \(request.method.rawValue) (Foundation fails the task with \"resource exceeds maximum size\"); send it with POST or PUT, or use AsyncHTTPClientAdapter, which sends it.",
                method: request.method,
                url: request.url
            )
        }
        try Self.refuseTLSOptionsItCannotApply(request)
        // FoundationNetworking stores connectionProxyDictionary and never reads it; on Apple
        // platforms a proxy would need a session of its own per proxy, not built yet.
        if let proxy = options.proxy?.proxy(for: request.url) {
            let hint = proxy.isPlainHTTPOrOpenSOCKS5 ? " AsyncHTTPClientAdapter can use it." : ""
            throw proxy.refusal(by: "URLSessionAdapter", for: request, hint: hint)
        }
        try env.cancellation.check()

        var urlRequest = URLRequest(url: request.url)
        if request.method != .get { urlRequest.httpMethod = request.method.rawValue }  // GET is its default
        // The bridge enforces the read timeout; URLSession's own one only as a backstop.
        if let readTimeout = options.readTimeout { urlRequest.timeoutInterval = max(60, readTimeout.timeInterval + 1) }
        urlRequest.allHTTPHeaderFields = Self.headerFields(request.headers)
        if Self.needsFreshConnection(request) { urlRequest.setValue("close", forHTTPHeaderField: "Connection") }

        let streams = options.streaming != nil
        let session = session(for: request)
        let task: URLSessionTask
        let bridge: URLSessionTaskBridge
        if let bytes = request.body.bytesInMemory {
            if !bytes.isEmpty { urlRequest.httpBody = bytes }
            bridge = URLSessionTaskBridge(env: env, temporaryFile: nil)
            task = session.dataTask(with: urlRequest)
        } else {
            let file = try await Self.spool(request)
            bridge = URLSessionTaskBridge(env: env, temporaryFile: file)
            task = session.uploadTask(with: urlRequest, fromFile: file)
        }
        bridge.attach(task, delegateQueue: session.delegateQueue) { [weak delegate] in
            delegate?.bridge(task) != nil
        }
        delegate.register(bridge, for: task)
        if let timeout = options.timeout {
            bridge.startCallTimer(
                timeout,
                error: FaradayError(
                    .callTimeout,
                    "The call did not finish within \(timeout).",
                    method: request.method,
                    url: request.url
                )
            )
        }
        if let readTimeout = options.readTimeout {
            bridge.startIdleTimer(
                readTimeout,
                error: FaradayError(
                    .readTimeout,
                    "No bytes arrived within \(readTimeout).",
                    method: request.method,
                    url: request.url
                )
            )
        }
        task.resume()

        let head: URLSessionTaskBridge.Head
        do {
            head = try await env.cancellation.withCancellationHandler {
                try await bridge.head()
            } onCancel: {
                bridge.cancel()
            }
        } catch {
            throw Self.faradayError(error, request: request)
        }

        var completion = env
        guard streams else {
            completion.response = ResponseData(
                status: Self.status(head.response),
                headers: Self.fields(head.response, bodyStart: head.body),
                body: head.body ?? Data()
            )
            completion.response?.httpVersion = head.httpVersion
            return .buffered(consume completion)
        }
        // A stream in an encoding the platform may or may not have decoded: its first bytes tell
        // which, so the head waits for them. Any other stream goes straight to the bridge.
        var nextFrame: @Sendable () async throws -> Data? = { try await bridge.nextPart() }
        var bodyStart: Data?
        if Self.platformDecoding(head.response.value(forHTTPHeaderField: "Content-Encoding"))
            == .decodedWherePlatformCan
        {
            do {
                let ahead = try await env.cancellation.withCancellationHandler {
                    try await ReadAhead.read(atLeast: Self.zstdMagic.count, from: nextFrame)
                } onCancel: {
                    bridge.cancel()
                }
                bodyStart = ahead.parts
                nextFrame = ahead.followed(by: nextFrame)
            } catch {
                throw Self.faradayError(error, request: request)
            }
        }
        completion.response = ResponseData(
            status: Self.status(head.response),
            headers: Self.fields(head.response, bodyStart: bodyStart)
        )
        return .streamed(
            head: completion,
            nextFrame: nextFrame,
            cancelTransfer: { bridge.cancel() },
            mapError: { Self.faradayError($0, request: request) }
        )
    }

    /// Refuses TLS options and pins this platform's URLSession cannot honour, before anything is sent.
    private static func refuseTLSOptionsItCannotApply(_ request: Request) throws(FaradayError) {
        try request.options.pinning?.refusePlainHTTP(request)
        let tls = request.options.tls
        func refuse(_ message: String) -> FaradayError {
            FaradayError(
                .unsupportedOption,
                message + " Use AsyncHTTPClientAdapter.",
                method: request.method,
                url: request.url
            )
        }
        #if canImport(Security) && canImport(CryptoKit)
        // Trust roots, verification and pins are applied in the server-trust challenge, the
        // minimum version by the request's session; a client identity would need a keychain item.
        if tls.clientIdentity != nil {
            throw refuse("URLSessionAdapter cannot present a client certificate given as PEM or DER.")
        }
        #else
        // FoundationNetworking exposes neither TLS settings nor the server's certificates.
        if !tls.isDefault {
            throw refuse("URLSessionAdapter cannot apply TLS options on this platform.")
        }
        if let host = request.url.host, request.options.pinning?.pinsConnections(to: host) == true {
            throw refuse(
                "URLSessionAdapter cannot see the server's certificates on this platform, so it cannot enforce the pins of \(host); it refuses the request rather than send it unpinned."
            )
        }
        #endif
    }

    /// Writes a streamed request body to a temporary file, for URLSession to upload from.
    static func spool(_ request: Request) async throws(FaradayError) -> URL {
        let stream = try request.body.makeStream()
        // Readable by the owner only: the body may hold anything (a password form, a token).
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("faraday-upload-\(UUID().uuidString)")
        let handle: OpenFile
        do {
            handle = try PrivateFile.create(file)
        } catch {
            throw FaradayError(.encodingFailed, "Could not create a temporary file to upload the body from: \(error)")
        }
        do {
            defer { try? handle.close() }
            for try await chunk in stream { try handle.write(contentsOf: chunk) }
            return file
        } catch {
            try? FileManager.default.removeItem(at: file)
            throw FaradayError.wrapping(error, request: request)
        }
    }
}
#endif
