import Foundation

extension Response {
    enum Role {
        /// The caller pulls the completions.
        case driver(Completions)
        /// Another consumer pulls them, or the call has finished.
        case follower
    }

    /// Starts the call if nobody has, then takes the right to pull its completions if nobody holds it.
    func acquire() async -> Role {
        enum Next {
            case waitForHead
            case drive(Completions)
            case follow
        }
        while true {
            await startIfIdle()
            let next = state.withLock { state -> Next in
                switch state.phase {
                case .idle, .starting: return .waitForHead
                case .ready(let completions):
                    state.phase = .pulling(completions)
                    return .drive(completions)
                case .pulling, .finished: return .follow
                }
            }
            switch next {
            case .waitForHead: _ = try? await awaitHead()
            case .drive(let completions): return .driver(completions)
            case .follow: return .follower
            }
        }
    }

    /// Runs the stack up to the response head in the calling task, if the call is idle.
    func startIfIdle() async {
        let starter = state.withLock { state -> CallState.Starter? in
            guard case .idle(let starter) = state.phase else { return nil }
            state.phase = .starting
            return starter
        }
        guard let starter else { return }
        do {
            let completions = try await starter.start()
            let waiters = state.withLock { state -> [@Sendable (Result<Env, FaradayError>) -> Void]? in
                guard case .starting = state.phase else { return nil }
                state.phase = .ready(completions)
                defer { state.headWaiters = [] }
                return state.headWaiters
            }
            // Cancelled while starting: what came back ends here, for every layer.
            guard let waiters else { return completions.cancel(with: Self.cancelledError) }
            for waiter in waiters { waiter(.success(completions.head)) }
        } catch {
            finish(failureEnv(FaradayError.wrapping(error, request: request)))
        }
    }

    /// Pulls the next completion, through every layer's hooks, and hands it to the callbacks.
    /// Returns `nil` once the call has finished; throws the error that ended it.
    func step(_ completions: Completions) async throws(FaradayError) -> Env? {
        let finished = state.withLock { state -> Env? in
            if case .finished(let env) = state.phase { return env }
            state.isStepping = true
            return nil
        }
        if let finished {
            // Ended from outside (cancelled) while this consumer was between pulls.
            if let error = finished.error { throw error }
            return nil
        }
        defer { state.withLock { $0.isStepping = false } }
        do throws(FaradayError) {
            if Task.isCancelled || cancellation.isCancelled {
                cancellation.cancel()
                completions.cancel(with: Self.cancelledError)
                throw Self.cancelledError.attaching(request)
            }
            // `nil`: the completions were ended from outside (cancelled) during this pull.
            guard let env = try await completions.next() else { throw Self.cancelledError.attaching(request) }
            if env.isFinal { finish(env) } else { deliver(env) }
            return env
        } catch {
            finish(failureEnv(error))
            throw error
        }
    }

    /// Hands a frame's completion to the callbacks and the following iterators.
    private func deliver(_ env: Env) {
        let subscribers = state.withLock { $0.subscribers }
        for subscriber in subscribers {
            switch subscriber {
            case .complete(let callback): callback(env)
            case .stream(_, let continuation): Self.yield(env, to: continuation)
            case .success, .failure: break
            }
        }
    }

    /// Ends the call with its final env (``Env/error`` set on failure), once.
    func finish(_ env: Env) {
        var env = env
        if env.error != nil { env.response?.body = Data() }
        let taken = state.withLock { [env] state -> CallState.Waiting? in
            if case .finished = state.phase { return nil }
            state.phase = .finished(env)
            state.driver = nil
            return state.takeWaiting()
        }
        guard let taken else { return }
        cancellation.endProgress(success: env.error == nil)
        if let error = env.error {
            for waiter in taken.headWaiters { waiter(.failure(error)) }
        }
        for subscriber in taken.subscribers { Self.run(subscriber, final: env) }
        for waiter in taken.finishWaiters { waiter(env) }
    }

    static func run(_ subscriber: CallState.Subscriber, final env: Env) {
        switch (subscriber, env.error) {
        case (.complete(let callback), _): callback(env)
        case (.success(let callback), nil): callback(env)
        case (.failure(let callback), let error?): callback(error)
        case (.stream(_, let continuation), nil):
            Self.yield(env, to: continuation)
            continuation.finish()
        case (.stream(_, let continuation), let error?): continuation.finish(throwing: error)
        case (.success, _?), (.failure, nil): break
        }
    }

    /// Adds a subscriber, running it at once when the call has finished, and makes sure a task
    /// runs the call.
    func register(_ subscriber: CallState.Subscriber) -> Response {
        let finished = state.withLock { state -> Env? in
            if case .finished(let env) = state.phase { return env }
            state.subscribers.append(subscriber)
            return nil
        }
        if let finished {
            Self.run(subscriber, final: finished)
        } else {
            ensureDriver()
        }
        return self
    }

    /// Starts a task that runs the whole call, unless a consumer already pulls it.
    func ensureDriver() {
        state.withLock { state in
            guard state.driver == nil else { return }
            switch state.phase {
            case .idle, .starting, .ready:
                state.driver = Task { await self.runToEnd() }
            case .pulling, .finished:
                return
            }
        }
    }

    private func runToEnd() async {
        guard case .driver(let completions) = await acquire() else { return }
        while let env = try? await step(completions), !env.isFinal {}
    }

    /// Ends a call whose pulling consumer went away before the final completion.
    func abandon() {
        cancellation.cancel()
        let completions = state.withLock { state -> Completions? in
            if case .pulling(let completions) = state.phase { return completions }
            return nil
        }
        completions?.cancel(with: Self.cancelledError)
        finish(failureEnv(Self.cancelledError))
    }

    /// Calls `waiter` with the final env, at once if the call has finished.
    func observeFinish(_ waiter: @escaping @Sendable (Env) -> Void) {
        let finished = state.withLock { state -> Env? in
            if case .finished(let env) = state.phase { return env }
            state.finishWaiters.append(waiter)
            return nil
        }
        if let finished { waiter(finished) }
    }

    /// Waits for the head; cancelling the waiting task cancels the call.
    func awaitHead() async throws(FaradayError) -> Env {
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Env, FaradayError>, Never>) in
                let known = state.withLock { state -> Result<Env, FaradayError>? in
                    if let head = state.head { return .success(head) }
                    if case .finished(let env) = state.phase {
                        return .failure(env.error ?? FaradayError(.unknown, "The call ended without a response."))
                    }
                    state.headWaiters.append { continuation.resume(returning: $0) }
                    return nil
                }
                if let known { continuation.resume(returning: known) }
            }
        } onCancel: {
            self.cancel()
        }
        return try result.get()
    }

    /// Waits for the final env; cancelling the waiting task cancels the call.
    func finalEnv() async throws(FaradayError) -> Env {
        let env = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                observeFinish { continuation.resume(returning: $0) }
            }
        } onCancel: {
            self.cancel()
        }
        if let error = env.error { throw error }
        return env
    }

    func failureEnv(_ error: FaradayError) -> Env {
        var env = state.withLock { $0.head } ?? startEnv
        env.response?.body = Data()
        env.error = error.attaching(env.request)
        env.phase = .final
        return env
    }
}
