import Faraday
import NIOCore
import NIOSSL

/// The connections of one event loop, by key: a call on a loop takes a connection of that loop, so
/// that its bytes never leave the loop's thread. Touched on its loop only.
final class LoopPool: @unchecked Sendable {
    /// The connections to one key, and the calls waiting for one.
    private final class Host: @unchecked Sendable {
        /// Idle connections, the most recently used last.
        var idle: [HTTP1Connection] = []
        /// Connections open or opening.
        var open = 0
        /// Calls waiting for a connection: handed one that was released, or (`nil`) a free place
        /// to open their own.
        var waiters = CircularBuffer<EventLoopPromise<HTTP1Connection?>>()
        /// The TLS context of the key's connections, made once (loading trust roots is costly).
        var tls: NIOSSLContext?
    }

    let loop: any EventLoop
    let executor: EventLoopExecutor
    private let limits: NIOAdapter.Configuration
    private var hosts: [PoolKey: Host] = [:]
    private var isShutDown = false

    init(loop: any EventLoop, limits: NIOAdapter.Configuration) {
        self.loop = loop
        self.executor = EventLoopExecutor(loop: loop)
        self.limits = limits
    }

    /// An idle connection to `key`, a new one, or the next one released when the key has its
    /// most; on this pool's loop.
    func lease(
        _ key: PoolKey,
        tls: @escaping () throws -> NIOSSLContext?,
        verifier: ConnectionPinVerifier?,
        connectTimeout: Duration,
        cancellation: CancellationToken
    ) async throws -> HTTP1Connection {
        loop.preconditionInEventLoop()
        guard !isShutDown else { throw FaradayError(.connectionFailed, "The adapter has been shut down.") }
        let host = hosts[key] ?? Host()
        hosts[key] = host
        while let connection = host.idle.popLast() {
            connection.idleTimer?.cancel()
            if !connection.handler.isClosed { return connection }
            host.open -= 1
        }
        if host.open >= limits.maximumConnectionsPerHost {
            let promise = loop.makePromise(of: HTTP1Connection?.self)
            host.waiters.append(promise)
            let handed = try await cancellation.withCancellationHandler {
                try await promise.futureResult.get()
            } onCancel: { [loop] in
                loop.execute {
                    guard let index = host.waiters.firstIndex(where: { $0.futureResult === promise.futureResult })
                    else {
                        return
                    }
                    host.waiters.remove(at: index)
                    promise.fail(FaradayError(.cancelled, "The request was cancelled."))
                }
            }
            if let handed { return handed }
        } else {
            host.open += 1
        }
        // A place is free: open a connection in it.
        do {
            if host.tls == nil, key.secure { host.tls = try tls() }
            return try await Connector.connect(
                key,
                on: loop,
                tls: host.tls,
                verifier: verifier,
                timeout: connectTimeout
            )
        } catch {
            loop.preconditionInEventLoop()
            freePlace(in: host)
            throw error
        }
    }

    /// Takes back a connection at the end of its exchange: to the next waiter or the idle list
    /// when `reusable`, else closed and its place freed.
    func release(_ connection: HTTP1Connection, to key: PoolKey, reusable: Bool) {
        loop.preconditionInEventLoop()
        guard let host = hosts[key] else {
            connection.channel.close(promise: nil)
            return
        }
        guard reusable, !isShutDown, !connection.handler.isClosed else {
            connection.channel.close(promise: nil)
            freePlace(in: host)
            return
        }
        if let waiter = host.waiters.popFirst() {
            waiter.succeed(connection)
            return
        }
        connection.handler.becomeIdle()
        connection.idleTimer = loop.scheduleTask(in: TimeAmount(limits.idleTimeout)) {
            guard let index = host.idle.firstIndex(where: { $0 === connection }) else { return }
            host.idle.remove(at: index)
            host.open -= 1
            connection.channel.close(promise: nil)
        }
        host.idle.append(connection)
    }

    /// A connection closed or failed to open: its place goes to the next waiter, if any.
    private func freePlace(in host: Host) {
        if let waiter = host.waiters.popFirst() {
            waiter.succeed(nil)
        } else {
            host.open -= 1
        }
    }

    /// Closes the idle connections and refuses new calls; on this pool's loop.
    func shutdown() -> [any Channel] {
        loop.preconditionInEventLoop()
        isShutDown = true
        var channels: [any Channel] = []
        for host in hosts.values {
            for connection in host.idle {
                connection.idleTimer?.cancel()
                channels.append(connection.channel)
            }
            host.idle = []
            while let waiter = host.waiters.popFirst() {
                waiter.fail(FaradayError(.connectionFailed, "The adapter has been shut down."))
            }
        }
        return channels
    }
}
