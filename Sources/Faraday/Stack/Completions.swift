#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What an ``App`` returns: the response head, then the completions of the call.
///
/// Every response takes one path up the stack, buffered or streamed alike: its bytes (the whole
/// body, or the chunks of a live transfer) go through the byte-level transforms of the package's
/// layers (``Decompression``), are cut into frames when the request asks for streaming, and each
/// completion then runs the hooks of every layer, innermost first, when the consumer pulls it.
/// A buffered response is one final completion; a streamed one is one completion per frame and a
/// final one with an empty body.
///
/// **Every layer sees the end.** Each hook added to a `Completions` receives exactly one terminal
/// event: `onComplete` with the final completion, or `onError` with the failure. That includes
/// ``FaradayError/Code/cancelled`` when the consumer leaves early, drops the handle, cancels, or a
/// layer above discards the response (``discard()``) or simply drops it: the terminal event is
/// tied to this object's life, not to a consumer that may never come back.
///
/// A middleware that implements ``Middleware/call(_:)`` reads the ``head`` (status and headers)
/// and may change it, or drop an answer it will not pass up (``discard()``):
///
/// ```swift
/// func call(_ env: Env) async throws(FaradayError) -> Completions {
///     let first = try await app.call(env.forAttempt())
///     guard first.head.status == .serviceUnavailable else { return first }
///     first.discard()
///     return try await app.call(env.forAttempt())
/// }
/// ```
public struct Completions: @unchecked Sendable {
    // `@unchecked Sendable`: copies share `storage`, whose state is only touched under its lock.
    private let storage: Storage

    /// The state of a response on its way up, and the end it owes every hook when dropped.
    private final class Storage: LockedBuffer<State> {
        deinit {
            // Nobody will pull what is left: every layer that has not seen the end sees it now.
            let owed = inDeinit { state in state.isEnded ? nil : (state.hooks, state.body, state.readHead()) }
            guard let (hooks, body, head) = owed else { return }
            body.stop?()
            Completions.fail(Completions.cancelled, env: Completions.failureEnv(head), hooks: hooks[...])
        }
    }

    private struct State {
        /// The head; for a buffered response until someone reads the head, the whole final
        /// completion (``Completions/buffered(_:)``), so that the common call copies no env.
        var head: Env
        /// `head` holds the final completion of a buffered response, not the head.
        var headIsFinal: Bool
        var body: Body
        var transforms: [any BodyTransform] = []
        var hooks: [Hook] = []
        var reader: Reader?
        var isEnded = false

        /// The head: status and headers, no body.
        mutating func readHead() -> Env {
            if headIsFinal {
                headIsFinal = false
                Completions.clearBody(of: &head)
            }
            return head
        }

        /// What the next pull reads: the final completion as it is (a buffered response that no
        /// transform or framer rewrites, which ends the completions), or the reader (made on the
        /// first pull) and the head to make the next completion from.
        mutating func takeNext() -> Next? {
            guard !isEnded else { return nil }
            if headIsFinal && transforms.isEmpty && head.request.options.streaming == nil {
                isEnded = true
                return .final(head, hooks)
            }
            if let reader {
                self.reader = nil
                return .read(reader, head)
            }
            let head = readHead()
            return .read(Reader(body: body, transforms: transforms, head: head), head)
        }

        enum Next {
            case final(Env, [Hook])
            case read(Reader, Env)
        }
    }

    /// The bytes of the response as the adapter hands them over.
    enum Body {
        case whole(Data)
        case stream(ByteStream, stop: (@Sendable () -> Void)?)

        var stop: (@Sendable () -> Void)? {
            if case .stream(_, let stop) = self { return stop }
            return nil
        }
    }

    private init(head: consuming Env, body: Body) {
        Self.clearBody(of: &head)
        storage = Storage.make(State(head: head, headIsFinal: false, body: body))
    }

    /// Makes `env` a head: no body, on the way down. Changed only where it differs: a change to
    /// an env whose fields another env shares copies them first.
    fileprivate static func clearBody(of env: inout Env) {
        if env.phase != .request { env.phase = .request }
        if env.response?.body.isEmpty == false { env.response?.body = Data() }
    }

    // MARK: Making

    /// A buffered response: `env` holds the status, headers and the whole body. Hand over the
    /// env's last use (`.buffered(consume head)`): an env another still shares is copied here.
    public static func buffered(_ env: consuming Env) -> Completions {
        let body = env.response?.body ?? Data()
        if env.phase != .final { env.phase = .final }
        return Completions(storage: Storage.make(State(head: env, headIsFinal: true, body: .whole(body))))
    }

    private init(storage: Storage) {
        self.storage = storage
    }

    /// A streamed response: `head` holds status and headers, `body` the bytes, whose pieces are
    /// cut into frames as the request's ``RequestOptions/streaming`` asks (raw pieces when it is
    /// `nil`), one completion each, followed by a final completion with an empty body.
    ///
    /// The producer of a live body's stream stops when the call's ``Env/cancellation`` is
    /// cancelled, or when its iterator is dropped.
    public static func streamed(head: consuming Env, body: ResponseBody) -> Completions {
        Completions(head: head, body: .stream(body.pieces(), stop: nil))
    }

    /// A streamed response whose transfer `stop` ends (closing the connection or cancelling the
    /// task) when the response is dropped or discarded before its end.
    static func streamed(
        head: consuming Env,
        frames: ByteStream,
        stop: @escaping @Sendable () -> Void
    ) -> Completions {
        Completions(head: head, body: .stream(frames, stop: stop))
    }

    // MARK: Changing on the way up

    /// The env once the response head is known: status and headers, no body.
    ///
    /// A middleware's ``Middleware/call(_:)`` may change it (``Decompression`` removes
    /// `Content-Encoding`); every completion is made from it.
    public var head: Env {
        get { storage.withLock { $0.readHead() } }
        nonmutating set {
            storage.withLock { state in
                state.head = newValue
                state.headIsFinal = false
            }
        }
    }

    /// Rewrites the body's bytes before they are cut into frames and reach any hook, for
    /// byte-level middleware such as ``Decompression``; the same for buffered and streamed bodies.
    @discardableResult
    package func transformBody(_ transform: any BodyTransform) -> Completions {
        storage.withLock { $0.transforms.append(transform) }
        return self
    }

    /// Adds a hook that runs on every completion, after the hooks of the layers below: for the
    /// package's adapters and the layers whose state is made in `call` (a cache's recorder).
    @discardableResult
    package func onComplete(_ hook: @escaping @Sendable (inout Env) throws -> Void) -> Completions {
        add(.complete(hook))
        return self
    }

    /// Replaces the error that ends the call (a transfer that fails, a hook below that throws, a
    /// consumer that leaves) as it passes this layer on its way up.
    @discardableResult
    package func mapErrors(_ transform: @escaping @Sendable (FaradayError) -> FaradayError) -> Completions {
        add(.mapError(transform))
        return self
    }

    /// Drops a response the middleware will not pass up (the first answer of a retried or
    /// redirected call): its transfer stops, its attempt is cancelled, and the layers below see
    /// ``FaradayError/Code/cancelled`` as their terminal event. Call it on completions of an
    /// attempt made with ``Env/forAttempt()``, whose cancellation is the attempt's own; otherwise
    /// the whole call is cancelled.
    ///
    /// Dropping a `Completions` without discarding it ends it the same way for the layers below
    /// and stops its transfer, but leaves the cancellation alone.
    public func discard() {
        guard let (hooks, body, head) = end() else { return }
        head.cancellation.cancel()
        body.stop?()
        Self.fail(Self.discarded, env: Self.failureEnv(head), hooks: hooks[...])
    }

    func add(_ hook: Hook) {
        let head = storage.withLock { state -> Env? in
            if state.isEnded { return state.readHead() }
            // Room for the hooks of a deep stack, so that the list is made once.
            if state.hooks.isEmpty { state.hooks.reserveCapacity(16) }
            state.hooks.append(hook)
            return nil
        }
        // Completions that ended already (discarded, then returned all the same) end for the
        // newcomer at once: it must see its end too.
        if let head { _ = hook.fail(Self.discarded, env: Self.failureEnv(head)) }
    }

    /// Marks the completions ended; returns what the terminal event needs, or `nil` if they had ended.
    private func end() -> ([Hook], Body, Env)? {
        storage.withLock { state in
            guard !state.isEnded else { return nil }
            state.isEnded = true
            return (state.hooks, state.body, state.readHead())
        }
    }

    // MARK: Pulling

    /// The next completion with every hook run on it; `nil` once the completions have ended.
    /// One consumer pulls at a time.
    func next() async throws(FaradayError) -> Env? {
        var (reader, env): (Reader, Env)
        switch storage.withLock({ $0.takeNext() }) {
        case nil: return nil
        case .final(let final, let hooks):
            // A large buffered body's hooks (decoding it) would hold an event loop's thread.
            guard final.body.count >= Offload.bodyThreshold else { return try Self.complete(final, hooks: hooks) }
            return try await Offload.run { () throws(FaradayError) -> Env in try Self.complete(final, hooks: hooks) }
        case .read(let taken, let head): (reader, env) = (taken, head)
        }
        do {
            try await reader.next(into: &env)
        } catch {
            guard let (hooks, body, _) = end() else { return nil }
            body.stop?()
            var failed = env
            failed.phase = .final
            throw Self.fail(FaradayError.wrapping(error, request: env.request), env: failed, hooks: hooks[...])
        }
        // The final completion ends the completions now: its hooks deliver every layer's end.
        let isFinal = env.isFinal
        let hooks = storage.withLock { state -> [Hook]? in
            guard !state.isEnded else { return nil }  // discarded or cancelled while pulling
            if isFinal { state.isEnded = true } else { state.reader = reader }
            return state.hooks
        }
        guard let hooks else { return nil }
        if isFinal { return try Self.complete(env, hooks: hooks) }
        for hook in hooks {
            do {
                try hook.complete(&env)
            } catch {
                // On a frame, the completions end here.
                guard let (_, body, _) = end() else { return nil }
                body.stop?()
                throw Self.fail(error.attaching(env.request), env: env, hooks: hooks[...])
            }
        }
        return env
    }

    /// Runs every hook on the final completion, which has ended the completions: a hook that
    /// throws ends the call, and the layers below it have seen their end already.
    private static func complete(_ final: Env, hooks: [Hook]) throws(FaradayError) -> Env {
        var env = final
        for index in hooks.indices {
            do {
                try hooks[index].complete(&env)
            } catch {
                throw fail(error.attaching(env.request), env: env, hooks: hooks[index...])
            }
        }
        return env
    }

    /// Ends the completions with `error` unless they have ended: what ``discard()`` does, for the
    /// handle's own cancellation.
    func cancel(with error: FaradayError) {
        guard let (hooks, body, head) = end() else { return }
        body.stop?()
        Self.fail(error, env: Self.failureEnv(head), hooks: hooks[...])
    }

    /// Runs the error hooks innermost first, each seeing the error as the layers below left it.
    @discardableResult
    fileprivate static func fail(_ error: FaradayError, env: Env, hooks: ArraySlice<Hook>) -> FaradayError {
        var error = error
        for hook in hooks { error = hook.fail(error, env: env) }
        return error
    }

    fileprivate static func failureEnv(_ head: Env) -> Env {
        var env = head
        env.phase = .final
        return env
    }

    fileprivate static let cancelled = FaradayError(.cancelled, "The request was cancelled.")
    private static let discarded = FaradayError(
        .cancelled,
        "The response was discarded by a layer above (a retry, a redirect or a new credential)."
    )
}
