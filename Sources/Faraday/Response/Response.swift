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
/// in a new task. A handle dropped without being consumed still sends its request: its connection
/// runs it to the end in the background, hooks and all.
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
    typealias Start = @Sendable () async throws -> Completions

    let state: Locked<CallState>
    /// The env the call starts from: its request and its cancellation, and the env of a call
    /// that fails before its response.
    let startEnv: Env
    /// Where an unconsumed handle's call goes to run: its connection's.
    private let background: BackgroundCalls?

    /// The call's cancellation.
    var cancellation: CancellationToken { startEnv.cancellation }
    /// The request, for the errors of a call that failed before its response.
    var request: Request { startEnv.request }

    init(startEnv: Env, background: BackgroundCalls?, start: @escaping Start) {
        self.startEnv = startEnv
        self.background = background
        self.state = Locked(CallState(phase: .idle(CallState.Starter(start: start))))
    }

    /// A handle for a call that failed before it could start (a bad URL or method).
    init(request: Request, failure: FaradayError) {
        let cancellation = CancellationToken()
        self.startEnv = Env(request: request, cancellation: cancellation)
        self.background = nil
        var env = startEnv
        env.error = failure.attaching(request)
        env.phase = .final
        self.state = Locked(CallState(phase: .finished(env)))
        cancellation.endProgress(success: false)
    }

    deinit {
        switch state.withLock({ $0.phase }) {
        case .idle(let starter):
            // Nobody consumed the handle: the request is sent all the same, and its progress
            // observers see the end when it ends.
            let cancellation = cancellation
            background?.run {
                do {
                    let completions = try await starter.start()
                    return completions.onComplete { env in
                        if env.isFinal { cancellation.endProgress(success: true) }
                    }.mapErrors { error in
                        cancellation.endProgress(success: false)
                        return error
                    }
                } catch {
                    cancellation.endProgress(success: false)
                    throw error
                }
            }
        case .ready:
            // Nobody will pull the response whose head arrived: dropping it below ends it for
            // every layer; the token stops whatever else the call holds (timers, waits).
            cancellation.cancel()
            cancellation.endProgress(success: false)
        case .starting, .pulling, .finished:
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
            if case .driver(let completions) = await acquire() {
                while let env = try await step(completions) {
                    if env.isFinal { return env }
                }
            }
            return try await finalEnv()
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

    /// Cancels the call: the adapter stops, every layer sees ``FaradayError/Code/cancelled`` as
    /// its terminal event, and consumers throw it (callbacks get it on the final env).
    public func cancel() {
        cancellation.cancel()
        let (task, pending) = state.withLock { state -> (Task<Void, Never>?, Completions??) in
            switch state.phase {
            case .idle: return (state.driver, .some(nil))
            case .ready(let completions): return (state.driver, completions)
            // A consumer between two pulls may never pull again: end the call here. One inside a
            // pull ends it itself, once the adapter stops or its callbacks return.
            case .pulling(let completions): return (state.driver, state.isStepping ? nil : completions)
            case .starting, .finished: return (state.driver, nil)
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
