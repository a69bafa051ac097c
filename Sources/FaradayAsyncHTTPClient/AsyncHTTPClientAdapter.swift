#if AsyncHTTPClient
import AsyncHTTPClient
import Faraday
import FaradayNIO
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOPosix
import NIOSSL
import Tracing

/// The production adapter on Linux: real HTTP/1.1 and HTTP/2 over AsyncHTTPClient and SwiftNIO.
///
/// ```swift
/// let adapter = AsyncHTTPClientAdapter()
/// let connection = try Connection(url: "https://api.example.com") { $0.adapter = adapter }
/// // …
/// try await adapter.shutdown()   // optional: an adapter released without it shuts down on its own
/// ```
///
/// The adapter owns its `HTTPClient`s (one per distinct set of open/read/write timeouts and
/// pinned host, all on one event loop group) with redirects, decompression and connection
/// retries turned off: those are middleware's jobs. The whole-call `timeout` is a per-request
/// deadline and shares a client; clients no call uses are shut down beyond the
/// ``Configuration/maximumIdleClients`` most recently used, so that callers who vary timeouts
/// per request do not grow the adapter without bound.
/// Request and response bodies stream with backpressure. A call with no request body and a buffered
/// response goes through AsyncHTTPClient's async API, the others through its delegate API; both
/// behave the same (see the Adapters article). Per request it honours
/// `RequestOptions.timeout` (a deadline for the whole call), `openTimeout`, `readTimeout`,
/// `writeTimeout`, `maxBufferedBodySize` and `streaming`, and cancellation from the `Response`
/// handle, `env.cancel()` or the awaiting task, which closes the connection.
public final class AsyncHTTPClientAdapter: Adapter {
    /// How the adapter's clients are set up.
    public struct Configuration: Sendable {
        /// The connect timeout when a request sets no `openTimeout`.
        public var connectTimeout: Duration = .seconds(10)
        /// The read timeout when a request sets no `readTimeout`: `RequestOptions.defaultReadTimeout`
        /// (60 s, as URLSession) unless changed; `nil`: none, so a silent server holds a call until
        /// its task is cancelled.
        public var readTimeout: Duration? = RequestOptions.defaultReadTimeout
        /// The write timeout when a request sets no `writeTimeout` (`nil`: none).
        public var writeTimeout: Duration?
        /// NIOSSL settings for every request; a request's `RequestOptions.tls` apply on top. Its
        /// lowest protocol version is raised to TLS 1.2 (NIOSSL's own default is TLS 1.0), as
        /// `TLSOptions` promise; a higher one is kept.
        public var tlsConfiguration: TLSConfiguration?
        /// Which HTTP versions to speak (HTTP/2 is negotiated over TLS with ALPN by `.automatic`).
        public var httpVersion: HTTPClient.Configuration.HTTPVersion = .automatic
        /// The most connections kept to one host.
        public var maximumConnectionsPerHost = 8
        /// How long an idle connection stays in the pool.
        public var idleTimeout: Duration = .seconds(60)
        /// The most clients (each with its connection pool) kept while no call uses them; the
        /// least recently used beyond it are shut down. Requests with their own open, read or
        /// write timeouts, or pins, need clients of their own.
        public var maximumIdleClients = 4

        /// The default configuration.
        public init() {}
    }

    /// What sets one client apart from another: timeouts are per client in AsyncHTTPClient, and
    /// so is the pin check (see ``ConnectionPinVerifier``).
    struct ClientKey: Hashable {
        var connect: Duration
        var read: Duration?
        var write: Duration?
        var pinned: PinnedHost?
        var proxy: Proxy?
    }

    /// A client, the calls using it, and when the last of them ended.
    private struct Pooled {
        let client: HTTPClient
        var calls = 0
        var lastUsed: UInt64 = 0
    }

    private struct State {
        var clients: [ClientKey: Pooled] = [:]
        /// Increases with each call's end, to order idle clients by their last use.
        var clock: UInt64 = 0
        var isShutDown = false

        /// Takes out the idle clients beyond `limit`, least recently used first.
        mutating func evictIdle(beyond limit: Int) -> [HTTPClient] {
            // At most `limit` clients in all (nearly always): nothing to look at, nothing allocated.
            guard clients.count > limit else { return [] }
            let idle = clients.filter { $0.value.calls == 0 }
            guard idle.count > limit else { return [] }
            let evicted = idle.sorted { $0.value.lastUsed < $1.value.lastUsed }.prefix(idle.count - limit)
            for (key, _) in evicted { clients[key] = nil }
            return evicted.map(\.value.client)
        }
    }

    /// The configuration the adapter was made with.
    public let configuration: Configuration
    /// The configuration's NIOSSL settings with TLS 1.2 at the least, for clients and requests.
    let tlsBase: TLSConfiguration?
    let eventLoopGroup: any EventLoopGroup
    private let state = Locked(State())

    /// Creates an adapter; its clients run on NIO's shared event loop group.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.tlsBase = configuration.tlsConfiguration.map { TLSSettings.raisingMinimumVersion($0, to: .v1_2) }
        self.eventLoopGroup = MultiThreadedEventLoopGroup.singleton
    }

    /// Whether the calling thread is one of the event loops AsyncHTTPClient runs on, which
    /// `Response.wait(timeout:)` must not block.
    public func ownsCurrentThread() -> Bool {
        eventLoopGroup.makeIterator().contains { $0.inEventLoop }
    }

    deinit {
        // Released without shutdown(): start the clients' shutdown so none is left running (an
        // HTTPClient keeps itself alive until its shutdown completes).
        for pooled in state.withLock({ Array($0.clients.values) }) { _ = pooled.client.shutdown() }
    }

    /// Shuts every client down, waiting for their connections to close. Requests made afterwards
    /// fail with `FaradayError.Code.connectionFailed`.
    ///
    /// - Throws: `FaradayError.Code.connectionFailed` when a client failed to shut down (it had
    ///   been shut down already, say); the others are shut down all the same.
    public func shutdown() async throws(FaradayError) {
        let clients = state.withLock { state -> [HTTPClient] in
            state.isShutDown = true
            defer { state.clients = [:] }
            return state.clients.values.map(\.client)
        }
        var failure: (any Error)?
        for client in clients {
            do {
                try await client.shutdown()
            } catch {
                failure = failure ?? error
            }
        }
        if let failure {
            throw FaradayError(.connectionFailed, "A client failed to shut down: \(failure)", underlying: failure)
        }
    }

    /// How many clients the adapter holds (for tests of its bound).
    package var clientCount: Int { state.withLock { $0.clients.count } }

    /// A call's claim on its client: the client is not shut down while a lease is held, and
    /// ending the lease (once, or when it is released) lets it go idle.
    final class Lease: Sendable {
        private let end: Locked<(@Sendable () -> Void)?>

        init(_ end: @escaping @Sendable () -> Void) { self.end = Locked(end) }

        /// Ends the lease; later calls do nothing.
        func release() {
            end.withLock { end in
                defer { end = nil }
                return end
            }?()
        }

        deinit { release() }
    }

    /// The client for a request, leased until the call ends.
    private func client(for request: Request) throws(FaradayError) -> (HTTPClient, Lease) {
        let (key, verifier) = try clientKey(for: request)
        let client = try state.withLock { state throws(FaradayError) -> HTTPClient in
            guard !state.isShutDown else {
                throw FaradayError(.connectionFailed, "The adapter has been shut down.")
            }
            var pooled = state.clients[key] ?? Pooled(client: makeClient(key, verifier: verifier))
            pooled.calls += 1
            state.clients[key] = pooled
            return pooled.client
        }
        let lease = Lease { [weak self] in self?.endCall(on: key) }
        return (client, lease)
    }

    private func endCall(on key: ClientKey) {
        let evicted = state.withLock { state -> [HTTPClient] in
            state.clock += 1
            if var pooled = state.clients[key] {
                pooled.calls -= 1
                pooled.lastUsed = state.clock
                state.clients[key] = pooled
            }
            return state.evictIdle(beyond: configuration.maximumIdleClients)
        }
        // Idle: no call of theirs is running, so nothing is cut short.
        for client in evicted { _ = client.shutdown() }
    }

    // MARK: Adapter

    public func call(_ env: Env) async throws(FaradayError) -> Completions {
        // A request that met a reused connection the server had closed goes again when it may
        // go twice (see `StaleConnectionDetector`): AsyncHTTPClient's pool has dropped that
        // connection, but may hand out another idle one closed at the same time, so as many
        // times as the pool may hold connections to the host, and then once on a new one.
        var resends = 0
        while true {
            do throws(FaradayError) {
                return try await send(env)
            } catch {
                guard Self.metClosedConnection(error), env.request.mayBeSentAgain,
                    resends < configuration.maximumConnectionsPerHost
                else { throw error }
                resends += 1
            }
        }
    }

    /// Whether a call failed on a reused connection the server had closed before any byte of
    /// its answer, or on one AsyncHTTPClient found closed before it wrote the request.
    private static func metClosedConnection(_ error: FaradayError) -> Bool {
        error.underlying is StaleConnectionClosed || (error.underlying as? ChannelError) == .ioOnClosedChannel
    }

    /// Sends the request once.
    private func send(_ env: Env) async throws(FaradayError) -> Completions {
        let request = env.request
        // Released when this call ends: on return for a buffered body or a failure, with the
        // stream's last part for a streamed one (or when its completions are dropped).
        let (client, lease) = try client(for: request)
        do {
            // No body to send and none to stream: the async API, cheaper per call; bodies and
            // streams need the delegate's per-part callbacks and backpressure.
            if request.options.streaming == nil, request.body.bytesInMemory?.isEmpty == true {
                return try await callThroughAsyncAPI(env, on: client, lease: lease)
            }
            return try await call(env, on: client, lease: lease)
        } catch {
            lease.release()
            throw error
        }
    }

    private func call(_ env: Env, on client: HTTPClient, lease: Lease) async throws(FaradayError) -> Completions {
        let request = env.request
        var clientRequest = try Self.makeRequest(
            request,
            writeTimeout: request.options.writeTimeout ?? configuration.writeTimeout
        )
        clientRequest.tlsConfiguration = try TLSSettings.configuration(
            request.options.tls,
            base: tlsBase
        )
        let streams = request.options.streaming != nil
        let delegate = ResponseDelegate(request: request, progress: env)
        let exchange = delegate.exchange
        let deadline = request.options.timeout.map { NIODeadline.now() + TimeAmount($0) }

        try env.cancellation.check()
        let task = client.execute(
            request: clientRequest,
            delegate: delegate,
            eventLoop: .indifferent,
            deadline: deadline,
            logger: Self.clientLogger(env.logger)
        )
        let head: Exchange.Head
        do {
            head = try await env.cancellation.withCancellationHandler {
                try await exchange.head()
            } onCancel: {
                task.cancel()
            }
        } catch {
            throw Self.faradayError(error, request: request)
        }

        var completion = env
        completion.response = try HTTP1Messages.response(
            head.head.status,
            head.head.headers,
            head.head.version,
            request: request
        )
        guard streams else {
            completion.response?.body = head.body.map { Data(buffer: $0, byteTransferStrategy: .noCopy) } ?? Data()
            lease.release()
            return .buffered(consume completion)
        }
        return .streamed(
            head: completion,
            nextFrame: {
                do {
                    guard let part = try await exchange.nextPart() else {
                        lease.release()
                        return nil
                    }
                    return Data(buffer: part, byteTransferStrategy: .noCopy)
                } catch {
                    lease.release()
                    throw error
                }
            },
            cancelTransfer: {
                task.cancel()
                lease.release()
            },
            mapError: { Self.faradayError($0, request: request) }
        )
    }
}
#endif
