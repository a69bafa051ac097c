#if NIO
import Atomics
import Faraday
import NIOCore
import NIOSSL

/// The connections of one event loop, by key: a call on a loop takes a connection of that loop, so
/// that its bytes never leave the loop's thread. Each key has at most the loop's ``share`` of the
/// adapter's limit per host.
///
/// `@unchecked Sendable` without a lock: its loop is its lock. Its mutable state (and its hosts')
/// is touched on its loop only, which `lease` and `release` check (`preconditionInEventLoop`),
/// and which the timers and cancellations reach through `loop.execute` or `scheduleTask`; only
/// ``hasRoom`` is read from other threads.
final class LoopPool: @unchecked Sendable {
    /// The connections to one key, and the calls waiting for one; on the pool's loop only, as
    /// the pool (`@unchecked Sendable` for the same reason).
    final class Host: @unchecked Sendable {
        /// Idle connections, the most recently used last.
        fileprivate var idle: [HTTP1Connection] = []
        /// Connections open or opening.
        fileprivate var open = 0
        /// Calls waiting for a connection: handed one that was released, or (`nil`) a free place
        /// to open their own.
        fileprivate var waiters = CircularBuffer<EventLoopPromise<HTTP1Connection?>>()
        /// The TLS context of the key's connections, made once (loading trust roots is costly).
        fileprivate var tls: TLSContext?
    }

    let loop: any EventLoop
    let executor: EventLoopExecutor
    /// The most connections to one key on this loop: its part of
    /// `NIOAdapter.Configuration.maximumConnectionsPerHost`, which the adapter splits among its
    /// loops; a loop without a part serves no calls.
    let share: Int
    /// Calls leasing or holding a connection of this loop, to any key.
    private let calls = ManagedAtomic<Int>(0)
    private let limits: NIOAdapter.Configuration
    private var hosts: [PoolKey: Host] = [:]
    private var isShutDown = false
    /// Closes the connections idle for the idle timeout: one timer for the loop's pool, set when
    /// a connection goes idle and none is set, rather than one per request.
    private var idleSweep: Scheduled<Void>?

    /// Whether fewer calls use this loop's connections than its share: a loop the adapter
    /// starts a call on rather than one where it would wait. Read from any thread; a hint, since
    /// the count mixes keys and may change at once.
    var hasRoom: Bool { calls.load(ordering: .relaxed) < share }

    /// Calls leasing or holding a connection of this loop now, to any key.
    var callsInUse: Int { calls.load(ordering: .relaxed) }

    init(loop: any EventLoop, share: Int, limits: NIOAdapter.Configuration) {
        self.loop = loop
        self.executor = EventLoopExecutor(loop: loop)
        self.share = share
        self.limits = limits
    }

    /// An idle connection to `key`, a new one, or the next one released when the key has its
    /// most, and whether it served a request before; on this pool's loop. With `fresh`, always a
    /// new one: at the key's most, an idle or released connection is closed to make its place.
    /// Each connection leased is given back with ``release(_:to:reusable:)``.
    func lease(
        _ key: PoolKey,
        fresh: Bool = false,
        tls: @escaping () throws -> TLSContext?,
        verifier: ConnectionPinVerifier?,
        connectTimeout: Duration,
        deadline: NIODeadline?,
        cancellation: CancellationToken
    ) async throws -> (HTTP1Connection, Host, reused: Bool) {
        precondition(share > 0, "A call on a loop with no part of the limit per host would wait for ever.")
        calls.wrappingIncrement(ordering: .relaxed)
        do {
            return try await connection(
                to: key,
                fresh: fresh,
                tls: tls,
                verifier: verifier,
                connectTimeout: connectTimeout,
                deadline: deadline,
                cancellation: cancellation
            )
        } catch {
            calls.wrappingDecrement(ordering: .relaxed)
            throw error
        }
    }

    private func connection(
        to key: PoolKey,
        fresh: Bool,
        tls: @escaping () throws -> TLSContext?,
        verifier: ConnectionPinVerifier?,
        connectTimeout: Duration,
        deadline: NIODeadline?,
        cancellation: CancellationToken
    ) async throws -> (HTTP1Connection, Host, reused: Bool) {
        loop.preconditionInEventLoop()
        guard !isShutDown else { throw FaradayError(.connectionFailed, "The adapter has been shut down.") }
        let host: Host
        if let known = hosts[key] {
            host = known
        } else {
            host = Host()
            hosts[key] = host
        }
        while !fresh, let connection = host.idle.popLast() {
            if !connection.handler.isClosed { return (connection, host, true) }
            host.open -= 1
        }
        if fresh, host.open >= share, let idle = host.idle.popLast() {
            idle.channel.close(promise: nil)  // its place is this call's
        } else if host.open >= share {
            let promise = loop.makePromise(of: HTTP1Connection?.self)
            host.waiters.append(promise)
            /// Takes the waiter out of the queue and fails it, unless it was served.
            @Sendable func giveUp(_ error: FaradayError) {
                guard let index = host.waiters.firstIndex(where: { $0.futureResult === promise.futureResult }) else {
                    return
                }
                host.waiters.remove(at: index)
                promise.fail(error)
            }
            // The call's deadline bounds the wait (AsyncHTTPClient's does too).
            let expiry = deadline.map { deadline in
                loop.scheduleTask(deadline: deadline) {
                    giveUp(
                        FaradayError(.callTimeout, "No connection to the host became free before the call's deadline.")
                    )
                }
            }
            defer { expiry?.cancel() }
            let handed = try await cancellation.withCancellationHandler {
                try await promise.futureResult.get()
            } onCancel: { [loop] in
                loop.execute { giveUp(FaradayError(.cancelled, "The request was cancelled.")) }
            }
            // A connection handed over and closed before this call could use it: its place is
            // this call's, to open another in.
            if let handed, !handed.handler.isClosed {
                guard fresh else { return (handed, host, true) }
                handed.channel.close(promise: nil)
            }
        } else {
            host.open += 1
        }
        // A place is free: open a connection in it.
        do {
            // Loading trust roots reads files: off the loop.
            if host.tls == nil, key.secure { host.tls = try await Offload.run(tls) }
            let connection = try await Connector.connect(
                key,
                on: loop,
                tls: host.tls,
                verifier: verifier,
                timeout: connectTimeout,
                cancellation: cancellation
            )
            return (connection, host, false)
        } catch {
            loop.preconditionInEventLoop()
            freePlace(in: host)
            throw error
        }
    }

    /// Takes back a connection at the end of its exchange: to the next waiter or the idle list
    /// when `reusable`, else closed and its place freed.
    func release(_ connection: HTTP1Connection, to host: Host, reusable: Bool) {
        loop.preconditionInEventLoop()
        calls.wrappingDecrement(ordering: .relaxed)
        guard reusable, !isShutDown, !connection.handler.isClosed else {
            connection.channel.close(promise: nil)
            freePlace(in: host)
            return
        }
        if let waiter = host.waiters.popFirst() {
            waiter.succeed(connection)
            return
        }
        connection.idleSince = .now()
        host.idle.append(connection)
        if idleSweep == nil { sweepIdle(at: connection.idleSince + TimeAmount(limits.idleTimeout)) }
    }

    /// Closes, at `deadline`, the connections idle for the idle timeout by then, and sets the
    /// next sweep for the first of the others to expire.
    private func sweepIdle(at deadline: NIODeadline) {
        idleSweep = loop.scheduleTask(deadline: deadline) { [self] in
            idleSweep = nil
            let timeout = TimeAmount(limits.idleTimeout)
            let now = NIODeadline.now()
            var next: NIODeadline?
            for host in hosts.values {
                host.idle.removeAll { connection in
                    let expiry = connection.idleSince + timeout
                    guard expiry <= now else {
                        next = min(next ?? expiry, expiry)
                        return false
                    }
                    host.open -= 1
                    connection.channel.close(promise: nil)
                    return true
                }
            }
            // Hosts with nothing open or waiting are forgotten (their TLS context with them).
            hosts = hosts.filter { $0.value.open > 0 || !$0.value.waiters.isEmpty }
            if let next { sweepIdle(at: next) }
        }
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
        idleSweep?.cancel()
        idleSweep = nil
        var channels: [any Channel] = []
        for host in hosts.values {
            channels += host.idle.map(\.channel)
            host.idle = []
            while let waiter = host.waiters.popFirst() {
                waiter.fail(FaradayError(.connectionFailed, "The adapter has been shut down."))
            }
        }
        return channels
    }
}
#endif
