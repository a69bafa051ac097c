#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The handle of one call, returned by every verb of ``Connection``.
///
/// Consume it the way that suits you; all of them can be combined:
///
/// ```swift
/// let env = try await connection.get("users/1").value              // await the final env
/// let user = try await connection.get("users/1").decode(User.self) // decode its JSON body
/// for try await frame in connection.get("feed", configure).completions { … } // one per frame
/// connection.get("users/1").onComplete { env in … }                  // callbacks
/// let env = try connection.get("users/1").wait(timeout: .seconds(5)) // block a plain thread
/// ```
///
/// The call starts when the handle is first consumed. Awaiting ``value``, ``head`` or iterating
/// ``completions`` runs the stack in the awaiting task (no extra task), and cancelling that task
/// cancels the request down to the adapter; an adapter that names an executor for the call
/// (``Adapter/preferredExecutor(for:)``, an event loop) has ``value`` and ``head`` run the stack
/// on it, and the awaiting code resumes where it was. Adding a callback or calling
/// ``wait(timeout:)`` runs it in a new task. A handle dropped without being consumed still sends
/// its request: a task of its own runs the call to the end, hooks and all.
///
/// Completions reach the callbacks in order: ``onComplete(_:)`` sees every completion (each frame of
/// a streamed response, then the final one, which carries ``Env/error`` when the call failed);
/// ``onSuccess(_:)`` and ``onFailure(_:)`` see the end of the call. A callback added after the call
/// finished runs at once with the final env. Callbacks run one at a time on the task that pulls the
/// response, after every layer's hooks, so a slow callback slows the transfer (backpressure).
///
/// A handle dropped after its head arrived, a loop left early and ``cancel()`` all end the call
/// with ``FaradayError/Code/cancelled``, which every layer of the stack sees as its terminal event.
public final class Response: Sendable {
    /// Runs a call's stack (calls `app` once or several times) and returns the completions the
    /// handle hands out.
    typealias Start = @Sendable (_ app: any App, _ env: Env) async throws -> Completions

    let state: Locked<State>
    /// The env the call starts from: its request and its cancellation, and the env of a call
    /// that fails before its response.
    let startEnv: Env

    /// The call's cancellation (the start env's, kept here: it is read on every pull).
    let cancellation: CancellationToken
    /// The request, for the errors of a call that failed before its response.
    var request: Request { startEnv.request }
    /// The stack's adapter when it names the executor a call runs on, else `nil`: known when
    /// the stack was built, so that other calls take no lock to learn it.
    private let executorAdapter: (any Adapter)?

    init(startEnv: Env, stack: BuiltStack, start: Start?) {
        self.startEnv = startEnv
        self.cancellation = startEnv.cancellation
        self.executorAdapter = stack.executorAdapter
        self.state = Locked(
            State(phase: .notStarted(State.Starter(app: stack.app, start: start)), adapter: stack.adapter)
        )
    }

    /// A handle for a call that failed before it could start (a bad URL or method).
    init(request: Request, failure: FaradayError) {
        let cancellation = CancellationToken()
        self.startEnv = Env(request: request, cancellation: cancellation)
        self.cancellation = cancellation
        self.executorAdapter = nil
        var env = startEnv
        env.error = failure.attaching(request)
        env.phase = .final
        self.state = Locked(State(phase: .finished(env)))
        cancellation.endProgress(success: false)
    }

    deinit {
        // `state` never leaves the handle: nothing else can hold its lock now.
        switch state.inDeinit({ $0.phase }) {
        case .notStarted(let starter):
            // Nobody consumed the handle: the request is sent all the same, in a task of its own,
            // and its progress observers see the end when it ends.
            Self.runInBackground(starter, env: startEnv)
        case .running:
            // Every consumer holds the handle while it pulls, so nobody pulls the response whose
            // head arrived: dropping it below ends it for every layer; the token stops whatever
            // else the call holds (timers, waits).
            cancellation.cancel()
            cancellation.endProgress(success: false)
        case .finished:
            break
        }
    }

    /// Runs the call of a handle dropped unconsumed to its end, every layer's hooks included (the
    /// original Swift Faraday sends a request whether or not its handle is used).
    private static func runInBackground(_ starter: State.Starter, env: Env) {
        Task {
            var succeeded = false
            if let completions = try? await starter.run(env) {
                while let env = try? await completions.next() {
                    if env.isFinal {
                        succeeded = true
                        break
                    }
                }
            }
            env.cancellation.endProgress(success: succeeded)
        }
    }

    // MARK: Consuming

    /// The final env of the call: the whole response when buffered, the final (empty) completion
    /// when streamed.
    ///
    /// - Throws: the ``FaradayError`` that ended the call.
    public var value: Env {
        get async throws(FaradayError) {
            try await onAdapterExecutor { () async throws(FaradayError) -> Env in
                guard let completions = await claimPull() else { return try await finalEnv() }
                while true {
                    let env = try await step(completions)
                    if env.isFinal { return env }
                }
            }
        }
    }

    /// The env once status and headers are known, before any frame of a streamed body.
    ///
    /// Awaiting the head does not pull the body: consume it afterwards with ``value``,
    /// ``completions`` or callbacks.
    public var head: Env {
        get async throws(FaradayError) {
            try await onAdapterExecutor { () async throws(FaradayError) -> Env in
                if let starter = claimStartForHead() { _ = await start(starter) }
                return try await awaitHead()
            }
        }
    }

    /// Every completion of the call as an asynchronous sequence: each frame of a streamed response,
    /// then the final completion. Iteration pulls the response (backpressure); leaving the loop
    /// early cancels the call.
    public var completions: CompletionSequence { CompletionSequence(response: self) }

    /// Calls `callback` with every completion, in order; starts the call if nobody has.
    @discardableResult
    public func onComplete(_ callback: @escaping @Sendable (Env) -> Void) -> Response {
        register(callback)
    }

    /// Calls `callback` with the final env when the call succeeds; starts the call if nobody has.
    @discardableResult
    public func onSuccess(_ callback: @escaping @Sendable (Env) -> Void) -> Response {
        register { env in
            if env.isFinal && env.error == nil { callback(env) }
        }
    }

    /// Calls `callback` with the error when the call fails; starts the call if nobody has.
    @discardableResult
    public func onFailure(_ callback: @escaping @Sendable (FaradayError) -> Void) -> Response {
        register { env in
            if let error = env.error, env.isFinal { callback(error) }
        }
    }

    /// Cancels the call: the adapter stops, every layer sees ``FaradayError/Code/cancelled`` as
    /// its terminal event, and consumers throw it (callbacks get it on the final env).
    public func cancel() {
        cancellation.cancel()
        let (task, pending) = state.withLock { state -> (Task<Void, Never>?, Completions??) in
            switch state.phase {
            case .notStarted: return (state.driver, .some(nil))
            // A consumer between two pulls may never pull again: end the call here. One inside a
            // pull (or still starting) ends it itself, once the adapter stops or its callbacks return.
            case .running:
                guard !state.isStepping else {
                    state.isEndOwed = true
                    return (state.driver, nil)
                }
                return (state.driver, state.completions.map { .some($0) })
            case .finished: return (state.driver, nil)
            }
        }
        task?.cancel()
        guard let pending else { return }
        pending?.cancel(with: Self.cancelledError)
        finish(failureEnv(Self.cancelledError))
    }

    /// `true` once the call has finished, successfully or not.
    public var isFinished: Bool {
        state.withLock { if case .finished = $0.phase { true } else { false } }
    }

    static let cancelledError = FaradayError(.cancelled, "The request was cancelled.")
}

extension Response {
    /// Where a call is, and who waits for it: the handle's one state, under one lock.
    struct State {
        enum Phase {
            /// Nobody has consumed the handle; holds the stack to run.
            case notStarted(Starter)
            /// A consumer has started the stack; ``completions`` is set once the head is known.
            case running
            /// The final env (with ``Env/error`` set when the call failed).
            case finished(Env)
        }

        /// The stack to run and how, in a struct so that taking it out of the lock copies no
        /// closure thunk.
        struct Starter {
            let app: any App
            /// How to call the stack; `nil` for the common call, the stack called once.
            let start: Start?

            func run(_ env: Env) async throws -> Completions {
                guard let start else { return try await app.call(env) }
                return try await start(app, env)
            }
        }

        /// Someone who wants every completion: a callback, or a second loop over the completions.
        struct Callback {
            /// Tells a loop's callback apart, so that it can leave; 0 for the others.
            let id: Int
            let run: @Sendable (Env) -> Void
        }

        var phase: Phase
        /// The stack's adapter until the call finishes, asked whether the calling thread is its
        /// own; `nil` for a call that failed before it could start.
        var adapter: (any Adapter)?
        /// The response, once its head is known.
        var completions: Completions?
        /// A consumer has the right to pull the completions (an awaited ``value``, the first loop,
        /// or the task that runs the call for callbacks).
        var isPulled = false
        /// That consumer is in the pull loop (pulling, running the callbacks, or about to pull
        /// again): ``cancel()`` leaves the end to it.
        var isStepping = false
        /// A ``cancel()`` came while that consumer was in the pull loop and left the end to it.
        var isEndOwed = false
        var callbacks: [Callback] = []
        /// Someone who waits for the head (or the failure that ends the call without one).
        typealias HeadWaiter = @Sendable (Result<Env, FaradayError>) -> Void

        var headWaiters: [HeadWaiter] = []
        /// The id of the next loop that follows the one that pulls.
        var lastFollowerID = 0
        /// The task that runs the call for callbacks and `wait`, when one does.
        var driver: Task<Void, Never>?

        /// The env with status and headers, once the head is known.
        var head: Env? {
            if let completions { return completions.head }
            guard case .finished(let env) = phase, env.response != nil else { return nil }
            var head = env
            head.response?.body = Data()
            head.phase = .request
            return head
        }
    }
}

extension Response {
    /// Runs `body` (a consumer's run of the call) on the executor the adapter names for this
    /// call, when it names one and the call has not started: the stack, the adapter and the
    /// response's bytes then share a thread (see ``Adapter/preferredExecutor(for:)``).
    func onAdapterExecutor<T, Failure: Error>(
        _ body: () async throws(Failure) -> T
    ) async throws(Failure) -> T {
        if executorAdapter != nil, #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *),
            let executor = adapterExecutor()
        {
            return try await withTaskExecutorPreference(executor, operation: body)
        }
        return try await body()
    }

    /// The adapter's executor for a call nobody has started; `nil` once it runs, so that a second
    /// consumer awaits where it is.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    private func adapterExecutor() -> (any TaskExecutor)? {
        let notStarted = state.withLock { state in
            if case .notStarted = state.phase { true } else { false }
        }
        return notStarted ? executorAdapter?.preferredExecutor(for: request) : nil
    }
}

// MARK: - The pull loop

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
        let error = env.error
        if error != nil { env.response?.body = Data() }
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
        cancellation.endProgress(success: error == nil)
        if let error {
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
