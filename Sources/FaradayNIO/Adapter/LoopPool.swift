import Faraday
import NIOCore
import NIOSSL

/// The connections of one event loop, by key: a call on a loop takes a connection of that loop, so
/// that its bytes never leave the loop's thread. How many may be open to a key is counted across
/// the loops, by the adapter's ``HostPlaces``.
///
/// `@unchecked Sendable` without a lock: its loop is its lock. Its mutable state (and its hosts')
/// is touched on its loop only, which `lease` and `release` check (`preconditionInEventLoop`),
/// and which the timers, cancellations and other loops reach through `loop.execute` or
/// `scheduleTask`.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
final class LoopPool: @unchecked Sendable {
    /// The connections to one key on this loop, and the calls waiting for one; on the pool's
    /// loop only, as the pool (`@unchecked Sendable` for the same reason).
    final class Host: @unchecked Sendable {
        let key: PoolKey
        /// Idle connections, the most recently used last.
        fileprivate var idle: [HTTP1Connection] = []
        /// Connections open or opening on this loop.
        fileprivate var open = 0
        /// Calls waiting for a connection: handed one that was released, or (`nil`) a free place
        /// to open their own.
        fileprivate var waiters = CircularBuffer<EventLoopPromise<HTTP1Connection?>>()
        /// The TLS context of the key's connections, made once (loading trust roots is costly).
        fileprivate var tls: TLSContext?

        fileprivate init(key: PoolKey) { self.key = key }
    }

    let loop: any EventLoop
    let executor: EventLoopExecutor
    private let limits: NIOAdapter.Configuration
    /// The places to each key, shared with the adapter's other loops.
    private let places: HostPlaces
    private var hosts: [PoolKey: Host] = [:]
    private var isShutDown = false
    /// Closes the connections idle for the idle timeout: one timer for the loop's pool, set when
    /// a connection goes idle and none is set, rather than one per request.
    private var idleSweep: Scheduled<Void>?

    init(loop: any EventLoop, limits: NIOAdapter.Configuration, places: HostPlaces) {
        self.loop = loop
        self.executor = EventLoopExecutor(loop: loop)
        self.limits = limits
        self.places = places
    }

    /// An idle connection to `key` on this loop, a new one, or, when the key has its most
    /// connections across the loops, the next one released here or a place freed anywhere; on
    /// this pool's loop.
    func lease(
        _ key: PoolKey,
        tls: @escaping () throws -> TLSContext?,
        verifier: ConnectionPinVerifier?,
        connectTimeout: Duration,
        deadline: NIODeadline?,
        cancellation: CancellationToken
    ) async throws -> (HTTP1Connection, Host) {
        loop.preconditionInEventLoop()
        guard !isShutDown else { throw FaradayError(.connectionFailed, "The adapter has been shut down.") }
        let host: Host
        if let known = hosts[key] {
            host = known
        } else {
            host = Host(key: key)
            hosts[key] = host
        }
        while let connection = host.idle.popLast() {
            if !connection.handler.isClosed { return (connection, host) }
            host.open -= 1
            places.free(key)
        }
        if places.take(key, orWaitOn: self) {
            host.open += 1
        } else {
            let promise = loop.makePromise(of: HTTP1Connection?.self)
            host.waiters.append(promise)
            /// Takes the waiter out of the queues and fails it, unless it was served.
            @Sendable func giveUp(_ error: FaradayError) {
                guard let index = host.waiters.firstIndex(where: { $0.futureResult === promise.futureResult }) else {
                    return
                }
                host.waiters.remove(at: index)
                places.withdraw(key, from: self)
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
            if let handed, !handed.handler.isClosed { return (handed, host) }
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
            return (connection, host)
        } catch {
            loop.preconditionInEventLoop()
            freePlace(in: host)
            throw error
        }
    }

    /// Takes back a connection at the end of its exchange: to the next waiter of this loop or
    /// the idle list when `reusable`, else closed and its place freed. A reusable connection
    /// nobody here waits for is closed instead when a call on another loop waits for a place.
    func release(_ connection: HTTP1Connection, to host: Host, reusable: Bool) {
        loop.preconditionInEventLoop()
        guard reusable, !isShutDown, !connection.handler.isClosed else {
            connection.channel.close(promise: nil)
            freePlace(in: host)
            return
        }
        if let waiter = host.waiters.popFirst() {
            places.withdraw(host.key, from: self)
            waiter.succeed(connection)
            return
        }
        if places.claimIdle(host.key) {
            connection.channel.close(promise: nil)
            host.open -= 1
            places.free(host.key, claimed: true)
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
                    places.free(host.key)
                    connection.channel.close(promise: nil)
                    return true
                }
            }
            // Hosts with nothing open or waiting are forgotten (their TLS context with them).
            hosts = hosts.filter { $0.value.open > 0 || !$0.value.waiters.isEmpty }
            if let next { sweepIdle(at: next) }
        }
    }

    /// A connection closed or failed to open: its place goes to the next waiter of this loop,
    /// else to the adapter's (`HostPlaces`).
    private func freePlace(in host: Host) {
        if let waiter = host.waiters.popFirst() {
            places.withdraw(host.key, from: self)
            waiter.succeed(nil)
        } else {
            host.open -= 1
            places.free(host.key)
        }
    }

    /// A place to `key` freed on another loop, for a call of this loop that waits (a new
    /// connection's); passed on when none waits any more.
    func placeGranted(_ key: PoolKey) {
        guard !isShutDown, let host = hosts[key], let waiter = host.waiters.popFirst() else {
            return places.free(key)
        }
        host.open += 1
        waiter.succeed(nil)
    }

    /// Another loop's call waits for a place to `key`: closes this loop's least recently used
    /// idle connection to it, whose place goes to that call.
    func closeIdle(_ key: PoolKey) {
        guard let host = hosts[key], let oldest = host.idle.first, places.claimIdle(key) else { return }
        host.idle.removeFirst()
        oldest.channel.close(promise: nil)
        host.open -= 1
        places.free(key, claimed: true)
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
            for _ in host.idle { places.free(host.key) }
            host.open -= host.idle.count
            host.idle = []
            while let waiter = host.waiters.popFirst() {
                places.withdraw(host.key, from: self)
                waiter.fail(FaradayError(.connectionFailed, "The adapter has been shut down."))
            }
        }
        return channels
    }
}
