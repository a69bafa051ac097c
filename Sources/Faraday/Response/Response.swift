import Foundation

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
/// ``completions`` runs the stack in the awaiting task (no extra task hop), and cancelling that task
/// cancels the request down to the adapter. Adding a callback or calling ``wait(timeout:)`` runs it
/// in a new task. A handle dropped without being consumed still sends its request.
///
/// Completions reach the callbacks in order: ``onComplete(_:)`` sees every completion (each frame of
/// a streamed response, then the final one, which carries ``Env/error`` when the call failed);
/// ``onSuccess(_:)`` and ``onFailure(_:)`` see the end of the call. A callback added after the call
/// finished runs at once with the final env. Callbacks run one at a time on the task that pulls the
/// response, so a slow callback slows the transfer (backpressure).
public final class Response: Sendable {
    typealias Start = @Sendable () async throws -> Completions

    private enum Phase {
        /// Not started; holds the stack to run.
        case idle(Start)
        /// A task is running the stack up to the response head.
        case starting
        /// The head is known; nobody pulls the completions yet.
        case ready(Completions)
        /// A task pulls the completions.
        case streaming
        /// The final env (with ``Env/error`` set when the call failed).
        case finished(Env)
    }

    private enum Callback {
        case complete(@Sendable (Env) -> Void)
        case success(@Sendable (Env) -> Void)
        case failure(@Sendable (FaradayError) -> Void)
        case stream(AsyncThrowingStream<Env, any Error>.Continuation)
    }

    private struct State {
        var phase: Phase
        var head: Env?
        var callbacks: [Callback] = []
        var headObservers: [@Sendable (Result<Env, FaradayError>) -> Void] = []
        var finishObservers: [@Sendable (Env) -> Void] = []
        var driver: Task<Void, Never>?
        /// A consumer is inside ``step(_:)``: pulling from the adapter or running callbacks.
        var isStepping = false
    }

    private let state: Locked<State>
    private let cancellation: CancellationToken
    /// The request, for the env of a call that failed before its response.
    private let request: Request

    init(request: Request, cancellation: CancellationToken, start: @escaping Start) {
        self.request = request
        self.cancellation = cancellation
        self.state = Locked(State(phase: .idle(start)))
    }

    /// A handle for a call that failed before it could start (a bad URL or method).
    init(request: Request, failure: FaradayError) {
        self.request = request
        self.cancellation = CancellationToken()
        var env = Env(request: request, cancellation: cancellation)
        env.error = failure.attaching(request)
        env.phase = .final
        self.state = Locked(State(phase: .finished(env)))
    }

    deinit {
        switch state.withLock({ $0.phase }) {
        case .idle(let start):
            // A handle nobody consumed still sends its request, as a fire-and-forget call.
            Task {
                guard let completions = try? await start() else { return }
                var iterator = Completions.Iterator(completions)
                while let env = try? await iterator.next(), !env.isFinal {}
            }
        case .ready:
            // Nobody will pull the body whose head arrived: let the adapter release it.
            cancellation.cancel()
        case .starting, .streaming, .finished:
            break
        }
    }

    // MARK: Consuming

    /// The final env of the call: the whole response when buffered, the final (empty) completion
    /// when streamed.
    ///
    /// - Throws: the ``FaradayError`` that ended the call.
    public var value: Env {
        get async throws(FaradayError) {
            switch await acquire() {
            case .driver(var iterator):
                while true {
                    guard let env = try await step(&iterator) else { break }
                    if env.isFinal { return env }
                }
                return try await finalEnv()
            case .follower:
                return try await finalEnv()
            }
        }
    }

    /// The env once status and headers are known, before any frame of a streamed body.
    ///
    /// Awaiting the head does not pull the body: consume it afterwards with ``value``,
    /// ``completions`` or callbacks.
    public var head: Env {
        get async throws(FaradayError) {
            await startIfIdle()
            return try await awaitHead()
        }
    }

    /// Every completion of the call as an asynchronous sequence: each frame of a streamed response,
    /// then the final completion. Iteration pulls the response (backpressure); leaving the loop
    /// early cancels the call.
    public var completions: CompletionSequence { CompletionSequence(response: self) }

    /// Decodes the final body as JSON into `type`.
    ///
    /// - Parameters:
    ///   - type: the type to decode.
    ///   - decoder: the decoder; by default the one ``DecodeJSON`` was configured with, or a
    ///     plain `JSONDecoder` when the stack has none.
    /// - Throws: the call's error, or ``FaradayError/Code/parsingFailed`` carrying the response and
    ///   the `DecodingError` (with its coding path).
    public func decode<Value: Decodable>(
        _ type: Value.Type,
        decoder: JSONDecoder? = nil
    ) async throws(FaradayError) -> Value {
        let env = try await value
        do {
            return try (decoder ?? env.jsonDecoder).decode(type, from: env.body)
        } catch {
            throw FaradayError(
                .parsingFailed,
                "The response body could not be decoded as \(type): \(error)",
                method: env.request.method,
                url: env.request.url,
                response: env.response,
                underlying: error
            )
        }
    }

    /// Calls `callback` with every completion, in order; starts the call if nobody has.
    @discardableResult
    public func onComplete(_ callback: @escaping @Sendable (Env) -> Void) -> Response {
        register(.complete(callback))
    }

    /// Calls `callback` with the final env when the call succeeds; starts the call if nobody has.
    @discardableResult
    public func onSuccess(_ callback: @escaping @Sendable (Env) -> Void) -> Response {
        register(.success(callback))
    }

    /// Calls `callback` with the error when the call fails; starts the call if nobody has.
    @discardableResult
    public func onFailure(_ callback: @escaping @Sendable (FaradayError) -> Void) -> Response {
        register(.failure(callback))
    }

    /// Runs the call and blocks the current thread until it finishes, for synchronous callers.
    ///
    /// It blocks only the calling thread; never call it from a Swift concurrency task, where it
    /// would hold a thread of the shared pool.
    ///
    /// - Parameter timeout: how long to wait; on expiry the call is cancelled and
    ///   ``FaradayError/Code/callTimeout`` thrown. `nil` waits as long as the call takes.
    @available(*, noasync, message: "wait(timeout:) blocks its thread; use `try await response.value` in async code")
    public func wait(timeout: Duration? = nil) throws(FaradayError) -> Env {
        let done = DispatchSemaphore(value: 0)
        let result = Locked<Env?>(nil)
        observeFinish { env in
            result.withLock { $0 = env }
            done.signal()
        }
        ensureDriver()
        if let timeout {
            if done.wait(timeout: .now() + max(0, timeout.timeInterval)) == .timedOut {
                cancel()
                throw FaradayError(
                    .callTimeout,
                    "The call did not finish within \(timeout).",
                    method: request.method,
                    url: request.url
                )
            }
        } else {
            done.wait()
        }
        guard let env = result.withLock({ $0 }) else {
            throw FaradayError(.unknown, "The call finished without a result.")
        }
        if let error = env.error { throw error }
        return env
    }

    /// Cancels the call: the adapter stops, a streamed response ends with a final cancelled
    /// completion, and awaiting consumers throw ``FaradayError/Code/cancelled``.
    public func cancel() {
        cancellation.cancel()
        let (task, endsNow) = state.withLock { state -> (Task<Void, Never>?, Bool) in
            switch state.phase {
            case .idle, .ready: return (state.driver, true)
            // A consumer between two pulls may never pull again: end the call here. One inside a
            // pull ends it itself, once the adapter stops or its callbacks return.
            case .streaming: return (state.driver, !state.isStepping)
            case .starting, .finished: return (state.driver, false)
            }
        }
        task?.cancel()
        if endsNow { finish(failureEnv(Self.cancelledError)) }
    }

    /// Ends a call whose pulling consumer went away before the final completion.
    func abandon() {
        cancellation.cancel()
        finish(failureEnv(Self.cancelledError))
    }

    /// `true` once the call has finished, successfully or not.
    public var isFinished: Bool {
        state.withLock { if case .finished = $0.phase { true } else { false } }
    }

    // MARK: Driving

    enum Role {
        /// The caller pulls the completions.
        case driver(Completions.Iterator)
        /// Another task pulls them, or the call has finished.
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
                    state.phase = .streaming
                    return .drive(completions)
                case .streaming, .finished: return .follow
                }
            }
            switch next {
            case .waitForHead: _ = try? await awaitHead()
            case .drive(let completions): return .driver(Completions.Iterator(completions))
            case .follow: return .follower
            }
        }
    }

    /// Runs the stack up to the response head in the calling task, if the call is idle.
    private func startIfIdle() async {
        let start = state.withLock { state -> Start? in
            guard case .idle(let start) = state.phase else { return nil }
            state.phase = .starting
            return start
        }
        guard let start else { return }
        do {
            let completions = try await start()
            let observers = state.withLock { state in
                guard case .starting = state.phase else { return [] as [@Sendable (Result<Env, FaradayError>) -> Void] }
                state.phase = .ready(completions)
                state.head = completions.head
                defer { state.headObservers = [] }
                return state.headObservers
            }
            for observer in observers { observer(.success(completions.head)) }
        } catch {
            finish(failureEnv(FaradayError.wrapping(error, request: request)))
        }
    }

    /// Pulls and delivers the next completion. Returns `nil` once the call has finished; throws the
    /// error that ended it.
    func step(_ iterator: inout Completions.Iterator) async throws(FaradayError) -> Env? {
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
        if Task.isCancelled { cancellation.cancel() }
        do {
            try cancellation.check()
            guard let env = try await iterator.next() else { return nil }
            if env.isFinal {
                finish(env)
            } else {
                deliver(env)
            }
            return env
        } catch {
            finish(failureEnv(error))
            throw error
        }
    }

    /// Starts a task that runs the whole call, unless one already runs it.
    private func ensureDriver() {
        state.withLock { state in
            guard state.driver == nil else { return }
            switch state.phase {
            case .idle, .ready:
                state.driver = Task { await self.runToEnd() }
            case .starting, .streaming, .finished:
                return
            }
        }
    }

    private func runToEnd() async {
        guard case .driver(var iterator) = await acquire() else { return }
        while let env = try? await step(&iterator), !env.isFinal {}
    }

    /// Runs the callbacks for a frame completion.
    private func deliver(_ env: Env) {
        let callbacks = state.withLock { $0.callbacks }
        for callback in callbacks {
            switch callback {
            case .complete(let callback): callback(env)
            case .stream(let continuation): continuation.yield(env)
            case .success, .failure: break
            }
        }
    }

    /// Ends the call with its final env (``Env/error`` set on failure), once.
    private func finish(_ env: Env) {
        let taken = state.withLock { state -> State? in
            if case .finished = state.phase { return nil }
            state.phase = .finished(env)
            defer {
                state.callbacks = []
                state.headObservers = []
                state.finishObservers = []
                state.driver = nil
            }
            return state
        }
        guard let taken else { return }
        if let error = env.error {
            for observer in taken.headObservers { observer(.failure(error)) }
        }
        for callback in taken.callbacks { Self.run(callback, final: env) }
        for observer in taken.finishObservers { observer(env) }
    }

    private static func run(_ callback: Callback, final env: Env) {
        switch (callback, env.error) {
        case (.complete(let callback), _): callback(env)
        case (.success(let callback), nil): callback(env)
        case (.failure(let callback), let error?): callback(error)
        case (.stream(let continuation), nil):
            continuation.yield(env)
            continuation.finish()
        case (.stream(let continuation), let error?): continuation.finish(throwing: error)
        case (.success, _?), (.failure, nil): break
        }
    }

    /// Adds a callback, running it at once when the call has finished, and makes sure a task runs
    /// the call.
    private func register(_ callback: Callback) -> Response {
        let finished = state.withLock { state -> Env? in
            if case .finished(let env) = state.phase { return env }
            state.callbacks.append(callback)
            return nil
        }
        if let finished {
            Self.run(callback, final: finished)
        } else {
            ensureDriver()
        }
        return self
    }

    /// Subscribes a stream to the completions from now on (for a second consumer).
    func subscribe() -> AsyncThrowingStream<Env, any Error> {
        let (stream, continuation) = AsyncThrowingStream<Env, any Error>.makeStream()
        _ = register(.stream(continuation))
        return stream
    }

    private func observeFinish(_ observer: @escaping @Sendable (Env) -> Void) {
        let finished = state.withLock { state -> Env? in
            if case .finished(let env) = state.phase { return env }
            state.finishObservers.append(observer)
            return nil
        }
        if let finished { observer(finished) }
    }

    /// Waits for the head; cancelling the waiting task cancels the call.
    private func awaitHead() async throws(FaradayError) -> Env {
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Env, FaradayError>, Never>) in
                let known = state.withLock { state -> Result<Env, FaradayError>? in
                    if let head = state.head { return .success(head) }
                    if case .finished(let env) = state.phase {
                        return .failure(env.error ?? FaradayError(.unknown, "The call ended without a response."))
                    }
                    state.headObservers.append { continuation.resume(returning: $0) }
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
    private func finalEnv() async throws(FaradayError) -> Env {
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

    private func failureEnv(_ error: FaradayError) -> Env {
        var env = state.withLock { $0.head } ?? Env(request: request, cancellation: cancellation)
        env.response?.body = Data()
        env.error = error.attaching(env.request)
        env.phase = .final
        return env
    }

    private static let cancelledError = FaradayError(.cancelled, "The request was cancelled.")
}
