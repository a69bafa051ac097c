import Foundation

/// What an ``App`` returns: the response head, then the completions of the call.
///
/// A buffered response has one completion, ``head`` itself (its ``Env/phase`` is
/// ``Env/Phase/final``), and its hooks run at once, inside the middleware's `call`, so an error a
/// hook throws propagates up the stack like any other. A streamed response has a head without a body,
/// then one completion per frame and a final one; hooks run on each as it is pulled.
///
/// Middleware that implement `call` themselves transform the completions with ``onComplete(_:)``:
///
/// ```swift
/// func call(_ env: Env) async throws -> Completions {
///     let started = ContinuousClock.now
///     return try await app.call(env).onComplete { env in
///         env[ElapsedKey.self] = ContinuousClock.now - started
///     }
/// }
/// ```
public struct Completions: Sendable {
    /// The env once the response head is known: status and headers, and for a buffered response
    /// the whole body (it is then the only completion).
    public var head: Env
    private var frames: ByteStream?
    private var hooks: [Hook]

    private enum Hook: Sendable {
        case middleware(any Middleware)
        case closure(@Sendable (inout Env) throws -> Void)
        case mapError(@Sendable (FaradayError) -> FaradayError)

        func complete(_ env: inout Env) throws {
            switch self {
            case .middleware(let middleware): try middleware.onComplete(&env)
            case .closure(let closure): try closure(&env)
            case .mapError: break
            }
        }

        /// Observes or replaces an error on its way out.
        func fail(_ error: FaradayError, env: Env) -> FaradayError {
            switch self {
            case .middleware(let middleware):
                middleware.onError(error, env: env)
                return error
            case .closure: return error
            case .mapError(let transform): return transform(error)
            }
        }
    }

    /// A buffered response: `env` holds the whole response and is the only completion.
    public static func buffered(_ env: Env) -> Completions {
        var env = env
        env.phase = .final
        return Completions(head: env, frames: nil, hooks: [])
    }

    /// A streamed response: `head` holds status and headers; each element of `frames` becomes one
    /// completion, followed by a final completion with an empty body.
    ///
    /// The producer of `frames` stops when the call's ``Env/cancellation`` is cancelled.
    public static func streamed(head: Env, frames: ByteStream) -> Completions {
        var head = head
        head.phase = .request
        return Completions(head: head, frames: frames, hooks: [])
    }

    /// `true` for a streamed response.
    public var isStreamed: Bool { frames != nil }

    /// Transforms the bytes of a streamed response before they are cut into frames: for
    /// byte-level middleware such as ``Decompression``. A buffered response is returned as it is.
    public func transformingBody(_ transform: (ByteStream) -> ByteStream) -> Completions {
        guard let frames else { return self }
        var copy = self
        copy.frames = transform(frames)
        return copy
    }

    /// Drops a response the middleware will not pass up (the first answer of a retried or
    /// redirected call): a streamed transfer is stopped, so its connection is not left reading.
    /// Call it only on completions of an attempt made with ``Env/forAttempt()``; otherwise the
    /// whole call is cancelled.
    public func discard() {
        if isStreamed { head.cancellation.cancel() }
    }

    /// Adds a hook that runs on every completion (at once for a buffered response).
    public func onComplete(_ hook: @escaping @Sendable (inout Env) throws -> Void) throws -> Completions {
        var copy = self
        if frames == nil {
            try hook(&copy.head)
        } else {
            copy.hooks.append(.closure(hook))
        }
        return copy
    }

    /// Replaces errors that end a streamed response later (a transfer that fails mid-body, a hook
    /// below that throws), as they pass this layer on their way up. A buffered response has no
    /// later errors; it is returned as it is.
    public func mapErrors(_ transform: @escaping @Sendable (FaradayError) -> FaradayError) -> Completions {
        guard frames != nil else { return self }
        var copy = self
        copy.hooks.append(.mapError(transform))
        return copy
    }

    /// Adds the hooks of a middleware (at once for a buffered response).
    mutating func addHooks(of middleware: some Middleware) throws {
        if frames == nil {
            try middleware.onComplete(&head)
        } else {
            hooks.append(.middleware(middleware))
        }
    }

    /// Iterates the completions, running the hooks on each; used by ``Response``.
    struct Iterator {
        private var completions: Completions
        private var frames: FrameReader?
        private var nextIndex = 0
        private var isDone = false

        init(_ completions: Completions) {
            self.completions = completions
            self.frames = completions.frames.map { chunks in
                FrameReader(
                    chunks: chunks,
                    streaming: completions.head.request.options.streaming ?? .chunks,
                    cancellation: completions.head.cancellation
                )
            }
        }

        /// The next completion, `nil` after the final one.
        mutating func next() async throws(FaradayError) -> Env? {
            guard !isDone else { return nil }
            guard frames != nil else {
                isDone = true
                return completions.head
            }
            var env = completions.head
            do {
                if let frame = try await frames?.next() {
                    env.response?.body = frame.body
                    if let event = frame.event { env[ServerSentEventKey.self] = event }
                    env.phase = .frame(nextIndex)
                    nextIndex += 1
                } else {
                    env.response?.body = Data()
                    env.phase = .final
                    isDone = true
                }
            } catch {
                isDone = true
                throw fail(FaradayError.wrapping(error, request: env.request), env: env, from: 0)
            }
            for (index, hook) in completions.hooks.enumerated() {
                do {
                    try hook.complete(&env)
                } catch {
                    isDone = true
                    throw fail(FaradayError.wrapping(error, request: env.request), env: env, from: index)
                }
            }
            return env
        }

        /// Runs the error hooks from layer `start` outwards and returns the error.
        private func fail(_ error: FaradayError, env: Env, from start: Int) -> FaradayError {
            var error = error
            for hook in completions.hooks[start...] { error = hook.fail(error, env: env) }
            return error
        }
    }
}
