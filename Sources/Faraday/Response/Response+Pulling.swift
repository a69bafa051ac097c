#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The one pull loop of a call: the first consumer starts the stack and pulls each completion
/// through every layer's hooks, handing it to the callbacks in order; everyone else waits for the
/// head or the end.
extension Response {
    // MARK: Starting

    /// Takes the stack to run if nobody has started the call, to run it up to the head only
    /// (``Response/head``): the right to pull stays free for the next consumer.
    func claimStartForHead() -> State.Starter? {
        state.withLock { state in
            guard case .notStarted(let starter) = state.phase else { return nil }
            state.phase = .running
            return starter
        }
    }

    /// Runs the stack up to the response head in the calling task and tells the head's waiters.
    /// Returns the completions, or `nil` when the call failed or was cancelled meanwhile.
    func start(_ starter: State.Starter) async -> Completions? {
        let completions: Completions
        do {
            completions = try await starter.run(startEnv)
        } catch {
            finish(failureEnv(FaradayError.wrapping(error, request: request)))
            return nil
        }
        let waiters = state.withLock { state -> [State.HeadWaiter]? in
            guard case .running = state.phase else { return nil }
            state.completions = completions
            defer { state.headWaiters = [] }
            return state.headWaiters
        }
        // Cancelled while starting: what came back ends here, for every layer.
        guard let waiters else {
            completions.cancel(with: Self.cancelledError)
            return nil
        }
        if !waiters.isEmpty {
            let head = completions.head
            for waiter in waiters { waiter(.success(head)) }
        }
        return completions
    }

    /// Starts the call if nobody has, then takes the right to pull its completions if nobody holds
    /// it; `nil` when another consumer pulls them or the call has finished. The claimant is then
    /// inside the pull loop (see `step(_:)`).
    func claimPull() async -> Completions? {
        enum Next {
            case start(State.Starter)
            case pull(Completions)
            case waitForHead
            case follow
        }
        while true {
            let next = state.withLock { state -> Next in
                switch state.phase {
                case .notStarted(let starter):
                    state.phase = .running
                    state.isPulled = true
                    state.isStepping = true
                    return .start(starter)
                case .running:
                    guard !state.isPulled else { return .follow }
                    // Started for its head only: pull once the head is known.
                    guard let completions = state.completions else { return .waitForHead }
                    state.isPulled = true
                    state.isStepping = true
                    return .pull(completions)
                case .finished:
                    return .follow
                }
            }
            switch next {
            case .start(let starter): return await start(starter)
            case .pull(let completions): return completions
            case .waitForHead: _ = try? await awaitHead()
            case .follow: return nil
            }
        }
    }

    // MARK: Pulling

    /// Pulls the next completion, through every layer's hooks, and hands it to the callbacks;
    /// throws the error that ended the call.
    ///
    /// The consumer that claimed the pull calls it in a loop until the final completion, and is
    /// inside the loop meanwhile: ``cancel()`` then only cancels the token, and the next pull ends
    /// the call. A consumer that hands control back to its caller between completions (a `for try
    /// await` loop) `pause()`s after each one and `resume()`s before the next.
    func step(_ completions: Completions) async throws(FaradayError) -> Env {
        let env: Env
        do throws(FaradayError) {
            if Task.isCancelled || cancellation.isCancelled {
                cancellation.cancel()
                completions.cancel(with: Self.cancelledError)
                throw Self.cancelledError.attaching(request)
            }
            // `nil`: the completions were ended from outside (cancelled) during this pull.
            guard let next = try await completions.next() else { throw Self.cancelledError.attaching(request) }
            env = next
        } catch {
            finish(failureEnv(error))
            throw error
        }
        if env.isFinal {
            finish(env)
        } else {
            for callback in state.withLock({ $0.callbacks }) { callback.run(env) }
        }
        return env
    }

    /// Leaves the pull loop between two completions: a ``cancel()`` from now on ends the call,
    /// and one that came during the pull (from a callback, or another task), which left the end
    /// to this consumer, ends it now.
    func pause() {
        let isEndOwed = state.withLock { state in
            state.isStepping = false
            return state.isEndOwed
        }
        if isEndOwed { cancel() }
    }

    /// Enters the pull loop again; `false` when the call was ended from outside (cancelled)
    /// meanwhile, and throws the error it ended with.
    func resume() throws(FaradayError) -> Bool {
        let finished = state.withLock { state -> Env? in
            if case .finished(let env) = state.phase { return env }
            state.isStepping = true
            return nil
        }
        guard let finished else { return true }
        if let error = finished.error { throw error }
        return false
    }

    /// Ends the call with its final env (``Env/error`` set on failure), once, and hands that env
    /// to every callback and waiter.
    func finish(_ env: Env) {
        var env = env
        if env.error != nil { env.response?.body = Data() }
        let taken = state.withLock { [env] state -> ([State.Callback], [State.HeadWaiter])? in
            if case .finished = state.phase { return nil }
            state.phase = .finished(env)
            state.adapter = nil
            state.completions = nil
            state.isStepping = false
            state.driver = nil
            defer {
                state.callbacks = []
                state.headWaiters = []
            }
            return (state.callbacks, state.headWaiters)
        }
        guard let (callbacks, headWaiters) = taken else { return }
        cancellation.endProgress(success: env.error == nil)
        if let error = env.error {
            for waiter in headWaiters { waiter(.failure(error)) }
        }
        for callback in callbacks { callback.run(env) }
    }

    /// Ends a call whose pulling consumer went away before the final completion.
    func abandon() {
        cancellation.cancel()
        state.withLock { $0.completions }?.cancel(with: Self.cancelledError)
        finish(failureEnv(Self.cancelledError))
    }

    // MARK: Callbacks and waiting

    /// Adds a callback for every completion from now on, running it at once with the final env if
    /// the call has finished; `id` tells a following loop's callback apart.
    func addCallback(id: Int = 0, _ run: @escaping @Sendable (Env) -> Void) {
        let finished = state.withLock { state -> Env? in
            if case .finished(let env) = state.phase { return env }
            state.callbacks.append(State.Callback(id: id, run: run))
            return nil
        }
        if let finished { run(finished) }
    }

    /// Adds a callback and makes sure a task runs the call.
    func register(_ callback: @escaping @Sendable (Env) -> Void) -> Response {
        addCallback(callback)
        ensureDriver()
        return self
    }

    /// Starts a task that runs the whole call, unless a consumer already pulls it.
    func ensureDriver() {
        state.withLock { state in
            guard state.driver == nil else { return }
            switch state.phase {
            case .notStarted: break
            case .running: guard !state.isPulled else { return }
            case .finished: return
            }
            state.driver = Task {
                await self.onAdapterExecutor { () async -> Void in
                    guard let completions = await self.claimPull() else { return }
                    while let env = try? await self.step(completions), !env.isFinal {}
                }
            }
        }
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
                addCallback { env in
                    if env.isFinal { continuation.resume(returning: env) }
                }
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
