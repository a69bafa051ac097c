/// The requests of one cache on their way to the server, by cache key, so that concurrent
/// misses for one key send one request (nginx's `proxy_cache_lock`, Varnish's waiting list).
///
/// The first call for a key leads: it sends the request, and its flight lands when the response
/// it stores has ended, at its head when it will store no fresh response, or when it fails. The
/// others wait for the landing, at most a bounded time, and then look in the store again: a
/// stored response that may answer them does, and each of the others goes to the server itself.
final class Flights: Sendable {
    enum Role {
        case leader(Flight)
        case waiter(Flight)
    }

    private let flights = Locked([String: Flight]())

    /// Leads the flight for `key`, or waits for the one under way; a flight older than `limit`
    /// (a long download, a stream) is waited for by nobody more (nginx's `proxy_cache_lock_age`).
    func join(_ key: String, within limit: Duration) -> Role {
        flights.withLock { flights in
            if let flight = flights[key], flight.start.duration(to: .now) < limit { return .waiter(flight) }
            let flight = Flight()
            flights[key] = flight
            return .leader(flight)
        }
    }

    /// Lands the leader's flight: its waiters go on, and the next call for `key` leads anew.
    func land(_ flight: Flight, key: String) {
        flights.withLock { flights in
            if flights[key] === flight { flights[key] = nil }
        }
        flight.land()
    }

    /// How many calls are waiting for a flight (for tests).
    var waiting: Int {
        flights.withLock { $0.values.reduce(0) { $0 + $1.waiting } }
    }
}

/// One request on its way, and the calls that wait for it.
final class Flight: Sendable {
    private struct State {
        var hasLanded = false
        var nextID = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        /// Waiters let go before they began to wait (a limit of nothing, a task cancelled early).
        var released: Set<Int> = []
    }

    private let state = Locked(State())
    /// When the leader took off.
    let start = ContinuousClock.now

    var waiting: Int { state.withLock { $0.waiters.count } }

    /// Waits until the flight lands, `limit` passes, or the call is cancelled, by its task or its
    /// `cancellation` (then it throws ``FaradayError/Code/cancelled``; the flight and its other
    /// waiters go on).
    func wait(limit: Duration, cancellation: CancellationToken) async throws(FaradayError) {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        let timer = Task {
            guard (try? await Task.sleep(for: limit)) != nil else { return }  // cancelled: landed first
            self.release(id)
        }
        await cancellation.withCancellationHandler {
            await withCheckedContinuation { continuation in
                let goesOn = state.withLock { state in
                    // The cancellation flag is set before the handler below runs.
                    let goesOn = state.hasLanded || state.released.remove(id) != nil || Task.isCancelled
                    if !goesOn { state.waiters[id] = continuation }
                    return goesOn
                }
                if goesOn { continuation.resume() }
            }
        } onCancel: {
            self.release(id)
        }
        timer.cancel()
        if Task.isCancelled || cancellation.isCancelled {
            throw FaradayError(.cancelled, "The request was cancelled while it waited for the same request.")
        }
    }

    /// Lets every waiter go on.
    fileprivate func land() {
        let waiters = state.withLock { state in
            state.hasLanded = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Lets one waiter go on (its limit passed, or its task was cancelled), or marks it to go on
    /// at once if it has not begun to wait.
    private func release(_ id: Int) {
        let waiter = state.withLock { state in
            guard let waiter = state.waiters.removeValue(forKey: id) else {
                state.released.insert(id)
                return CheckedContinuation<Void, Never>?.none
            }
            return waiter
        }
        waiter?.resume()
    }
}
