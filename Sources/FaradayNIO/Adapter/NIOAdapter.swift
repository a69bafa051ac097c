#if NIO
import Atomics
import Faraday
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes
import NIOCore
import NIOFoundationEssentialsCompat
import NIOHTTP1
import NIOPosix
import NIOSSL

/// HTTP/1.1 on SwiftNIO's own codecs, with the call where its bytes are: each call runs its stack
/// on the event loop that owns its connection, so that the middleware, the adapter and the
/// response's bytes share one thread with no hand-over between them.
///
/// ```swift
/// let adapter = NIOAdapter()
/// let connection = try Connection(url: "https://api.example.com") { $0.adapter = adapter }
/// // …
/// try await adapter.shutdown()
/// ```
///
/// Each event loop of the group keeps its own keep-alive connections per origin (and per TLS
/// options, pins and proxy). ``Configuration/maximumConnectionsPerHost`` bounds them across the
/// loops: it is split among them, a call starts on a loop with room for it, and waits for one of
/// its loop's connections only when no loop has room. Idle connections close after
/// ``Configuration/idleTimeout``. A connection is reused only after a response read to its end and
/// a request sent in full; one that failed, timed out or was cancelled is closed.
///
/// It speaks HTTP/1.1 only (AsyncHTTPClientAdapter speaks HTTP/2 too), over TLS 1.2 or later
/// with `TLSOptions` and certificate pinning, through HTTP (`CONNECT`) and SOCKS5 proxies.
/// Per request it honours `RequestOptions.timeout` (a deadline for the whole call), `openTimeout`
/// (TCP, the proxy and TLS), `readTimeout` (between bytes, while the response is being read),
/// `writeTimeout` (each slice of the request body), `maxBufferedBodySize` and `streaming`, and
/// cancellation, which closes the connection. Redirects, decompression and retries are
/// middleware's jobs.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
public final class NIOAdapter: Adapter {
    /// How the adapter connects.
    public struct Configuration: Sendable {
        /// The connect timeout when a request sets no `openTimeout`: TCP, the proxy's handshake
        /// and TLS's.
        public var connectTimeout: Duration = .seconds(10)
        /// The read timeout when a request sets no `readTimeout`: `RequestOptions.defaultReadTimeout`
        /// unless changed; `nil`: none.
        public var readTimeout: Duration? = RequestOptions.defaultReadTimeout
        /// The write timeout when a request sets no `writeTimeout` (`nil`: none).
        public var writeTimeout: Duration?
        /// NIOSSL settings for every request; a request's `RequestOptions.tls` apply on top. Its
        /// lowest protocol version is raised to TLS 1.2.
        public var tlsConfiguration: TLSConfiguration?
        /// The most connections to one origin (and set of TLS options, pins and proxy) across the
        /// event loops. Each loop has an equal part (the first loops one more, when it does not
        /// divide); when the group has more loops than this, the calls run on this many of them.
        public var maximumConnectionsPerHost = 8
        /// How long an idle connection stays open.
        public var idleTimeout: Duration = .seconds(60)

        /// The default configuration.
        public init() {}
    }

    /// The configuration the adapter was made with.
    public let configuration: Configuration
    private let tlsBase: TLSConfiguration
    /// One pool per loop of the group.
    private let pools: [LoopPool]
    /// The pools with a part of the limit per host: the loops calls run on.
    private let serving: [LoopPool]
    /// The serving pool a call from outside them takes next, in turn.
    private let nextServing = ManagedAtomic<Int>(0)

    /// Creates an adapter on NIO's shared event loop group (one loop per core).
    public convenience init(configuration: Configuration = Configuration()) {
        self.init(configuration: configuration, group: MultiThreadedEventLoopGroup.singleton)
    }

    /// Creates an adapter on the loops of `group`.
    public init(configuration: Configuration = Configuration(), group: MultiThreadedEventLoopGroup) {
        self.configuration = configuration
        self.tlsBase = TLSSettings.raisingMinimumVersion(
            configuration.tlsConfiguration ?? .makeClientConfiguration(),
            to: .v1_2
        )
        let loops = Array(group.makeIterator())
        let limit = max(1, configuration.maximumConnectionsPerHost)
        self.pools = loops.enumerated().map { index, loop in
            let share = limit / loops.count + (index < limit % loops.count ? 1 : 0)
            return LoopPool(loop: loop, share: share, limits: configuration)
        }
        self.serving = pools.filter { $0.share > 0 }
    }

    /// Closes the idle connections; calls made afterwards fail with
    /// `FaradayError.Code.connectionFailed`. Calls in flight finish.
    public func shutdown() async throws(FaradayError) {
        for pool in pools {
            let channels = try? await pool.loop.submit { pool.shutdown() }.get()
            for channel in channels ?? [] { try? await channel.close() }
        }
    }

    /// Calls leasing or holding one of the adapter's connections now: zero once every call has
    /// ended, whatever way it ended (the fault campaign checks it).
    package var callsInUse: Int { pools.reduce(0) { $0 + $1.callsInUse } }

    // MARK: Adapter

    /// The executor of the loop the call will run on: the caller's loop when it serves calls
    /// and has room for one more, else the next of those in turn that has, else the caller's or
    /// the next in turn.
    public func preferredExecutor(for request: Request) -> (any TaskExecutor)? {
        loopExecutor()
    }

    /// Every call runs on one of the loops.
    public var namesExecutors: Bool { true }

    /// The executor of one of the event loops that serve calls: the caller's, when it runs on
    /// one with room for one more call, else the next in turn that has (else the caller's or the
    /// next in turn). Prefer it for tasks of your own that make many calls (a task group's
    /// `addTask(executorPreference:)`): their calls then run where their bytes are, with no hop
    /// between Swift's pool and the loop (`Benchmarks/README.md`: the `CALLER=loop` runs).
    public func loopExecutor() -> any TaskExecutor {
        pool().executor
    }

    /// Whether the calling thread is one of the group's loops, which `Response.wait(timeout:)`
    /// must not block.
    public func ownsCurrentThread() -> Bool {
        guard let current = MultiThreadedEventLoopGroup.currentEventLoop else { return false }
        return pools.contains { $0.loop === current }
    }

    /// The pool of the current loop when it serves calls and has room, else of the next serving
    /// loop in turn that has room (a call that would wait on its loop hops to one where it
    /// need not), else of the current loop or the next in turn.
    private func pool() -> LoopPool {
        let current = MultiThreadedEventLoopGroup.currentEventLoop.flatMap { current in
            serving.first { $0.loop === current }
        }
        if let current, current.hasRoom { return current }
        let ticket = UInt(bitPattern: nextServing.loadThenWrappingIncrement(ordering: .relaxed))
        let turn = Int(ticket % UInt(serving.count))
        for offset in serving.indices {
            let pool = serving[(turn + offset) % serving.count]
            if pool.hasRoom { return pool }
        }
        return current ?? serving[turn]
    }

    /// Sends the request on a connection of the pool `pool()` picks (the loop the handle started
    /// the call on, unless that loop filled since), opening one when none is idle, and returns
    /// its response.
    public func call(_ env: Env) async throws(FaradayError) -> Completions {
        let request = env.request
        let key: PoolKey
        let verifier: ConnectionPinVerifier?
        (key, verifier) = try poolKey(for: request)
        let pool = pool()
        do {
            // Already preferred when the handle ran the stack here; a call iterated from elsewhere
            // (or a loop thread running the global executor's jobs, or a loop that filled since
            // the handle chose it) moves to the pool's loop.
            // The whole call's deadline, from its start to the response's end, a resend included.
            let deadline = request.options.timeout.map { NIODeadline.now() + TimeAmount($0) }
            return try await withTaskExecutorPreference(pool.executor) {
                do {
                    return try await call(env, key: key, verifier: verifier, on: pool, deadline: deadline, fresh: false)
                } catch is ResendOnNewConnection {
                    return try await call(env, key: key, verifier: verifier, on: pool, deadline: deadline, fresh: true)
                }
            }
        } catch {
            if let proxy = key.proxy, let refused = Connector.proxyError(error, proxy: proxy, request: request) {
                throw refused
            }
            throw NIOErrors.faradayError(error, request: request)
        }
    }

    /// The call on `pool`'s loop, on a new connection when `fresh`. Throws
    /// ``ResendOnNewConnection`` when a reused connection closed before any byte of the answer
    /// and the request may be sent again.
    private func call(
        _ env: Env,
        key: PoolKey,
        verifier: ConnectionPinVerifier?,
        on pool: LoopPool,
        deadline callDeadline: NIODeadline?,
        fresh: Bool
    ) async throws -> Completions {
        let request = env.request
        let options = request.options
        try env.cancellation.check()
        // How the body goes: at once when it is in memory, else streamed. The stream is taken
        // before a connection is, so that a one-shot body already used fails with nothing held.
        let writeTimeout = options.writeTimeout ?? configuration.writeTimeout
        let body = request.body.bytesInMemory
        let stream = body != nil && (writeTimeout == nil || body?.isEmpty == true) ? nil : try request.body.makeStream()
        let (connection, host, reused) = try await pool.lease(
            key,
            fresh: fresh,
            tls: { try self.tlsContext(options.tls, for: key) },
            verifier: verifier,
            connectTimeout: options.openTimeout ?? configuration.connectTimeout,
            deadline: callDeadline,
            cancellation: env.cancellation
        )
        // Cancelled while waiting for the connection: nothing is sent, and the connection is clean.
        if env.cancellation.isCancelled {
            pool.release(connection, to: host, reusable: true)
            try env.cancellation.check()
        }
        let channel = connection.channel
        let handler = connection.handler
        let exchange = Exchange(request: request, progress: env) { [loop = pool.loop] in
            if loop.inEventLoop { handler.resumeReading() } else { loop.execute { handler.resumeReading() } }
        }
        var head = HTTPRequestHead(
            version: .http1_1,
            method: HTTPMethod(rawValue: request.method.rawValue),
            uri: Self.target(of: request.url),
            headers: HTTP1Messages.headers(of: request)
        )
        if !head.headers.contains(name: "host") { head.headers.add(name: "Host", value: Self.hostField(key)) }
        // The framing is the adapter's: a caller's own is replaced, never sent beside it.
        head.headers.remove(name: "Content-Length")
        head.headers.remove(name: "Transfer-Encoding")
        let length = body?.count ?? request.body.length
        if let length, length > 0 || Self.sendsLength(request.method) {
            head.headers.replaceOrAdd(name: "Content-Length", value: String(length))
        } else if length == nil {
            head.headers.replaceOrAdd(name: "Transfer-Encoding", value: "chunked")
        }
        let keepAlive = head.isKeepAlive

        let deadline = callDeadline.map { callDeadline in
            pool.loop.scheduleTask(deadline: callDeadline) {
                handler.fail(
                    exchange,
                    with: FaradayError(.callTimeout, "The call did not finish before its deadline.")
                )
            }
        }
        handler.start(
            exchange,
            readTimeout: (options.readTimeout ?? configuration.readTimeout).map(TimeAmount.init),
            keepAlive: keepAlive
        ) { reusable in
            deadline?.cancel()
            pool.release(connection, to: host, reusable: reusable)
        }

        // The request: at once when its body is in memory, else streamed in the background.
        let upload: Task<Void, Never>?
        if let body, stream == nil {
            channel.write(HTTPClientRequestPart.head(head), promise: nil)
            if body.isEmpty {
                // Nothing can be left unsent on the connection; a write that fails closes it.
                channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
                handler.requestEnded()
            } else {
                channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(data: body))), promise: nil)
                // Ended once written: a server that answers before reading the whole body (a 413)
                // leaves the connection with bytes still queued, not to be reused.
                let sent = pool.loop.makePromise(of: Void.self)
                sent.futureResult.whenSuccess {
                    handler.requestEnded()
                    env.reportProgress(sent: Int64(body.count), of: Int64(body.count))
                }
                channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: sent)
            }
            upload = nil
        } else if let stream {
            channel.writeAndFlush(HTTPClientRequestPart.head(head), promise: nil)
            let sending = Upload(
                channel: channel,
                timeout: writeTimeout.map(TimeAmount.init),
                request: request,
                progress: env
            )
            upload = Task {
                do {
                    try await sending.send(stream, length: length) { handler.requestEnded() }
                } catch {
                    _ = try? await pool.loop.submit { handler.fail(exchange, with: error) }.get()
                }
            }
        } else {
            upload = nil
        }

        let answer: Exchange.Head
        do {
            answer = try await env.cancellation.withCancellationHandler {
                try await exchange.head()
            } onCancel: { [loop = pool.loop] in
                loop.execute { handler.fail(exchange, with: FaradayError(.cancelled, "The request was cancelled.")) }
            }
        } catch let closed as ClosedBeforeResponse {
            upload?.cancel()
            // A server closes an idle connection at its keep-alive timeout, maybe just as the
            // request went out on it: the request may not have been read. One that may be sent
            // twice goes once more, on a new connection (curl, Go and OkHttp do the same).
            if reused, request.mayBeSentAgain { throw ResendOnNewConnection() }
            throw closed.error
        } catch {
            upload?.cancel()
            throw error
        }
        var completion = env
        do {
            completion.response = try HTTP1Messages.response(
                answer.head.status,
                answer.head.headers,
                answer.head.version,
                request: request
            )
        } catch {
            pool.loop.execute { handler.fail(exchange, with: error) }
            throw error
        }
        guard exchange.streams else {
            completion.response?.body = answer.body.map { Data(buffer: $0, byteTransferStrategy: .noCopy) } ?? Data()
            return .buffered(consume completion)
        }
        return .streamed(
            head: completion,
            nextFrame: {
                guard let part = try await exchange.nextPart() else { return nil }
                return Data(buffer: part, byteTransferStrategy: .noCopy)
            },
            cancelTransfer: { [loop = pool.loop] in
                upload?.cancel()
                loop.execute { handler.fail(exchange, with: FaradayError(.cancelled, "The request was cancelled.")) }
            },
            mapError: { NIOErrors.faradayError($0, request: request) }
        )
    }

    /// A TLS context with the adapter's settings and a request's options, for `key`'s connections.
    private func tlsContext(_ options: TLSOptions, for key: PoolKey) throws -> TLSContext {
        try TLSContext(TLSSettings.configuration(options, base: tlsBase) ?? tlsBase, for: key)
    }
}
#endif
