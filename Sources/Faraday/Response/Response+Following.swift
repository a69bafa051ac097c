/// A second loop over one handle's ``Response/completions``: it follows the loop that pulls the
/// call, bounded, and leaves the call as soon as it ends or is dropped.
extension Response {
    /// The most completions a following loop may fall behind the loop that pulls the call: past
    /// it, the follower gets what it has not read yet, then ``FaradayError/Code/bodyTooLarge``,
    /// rather than hold every frame of a long stream.
    static let followerBacklog = 256

    /// Hands `env` to a following loop, or ends the loop once it has fallen too far behind.
    static func yield(_ env: Env, to continuation: AsyncThrowingStream<Env, any Error>.Continuation) {
        guard case .dropped = continuation.yield(env) else { return }
        continuation.finish(
            throwing: FaradayError(
                .bodyTooLarge,
                "This loop over the completions fell more than \(followerBacklog) completions behind the loop that pulls the call.",
                method: env.request.method,
                url: env.request.url
            )
        )
    }

    /// A following loop's completions from now on: bounded by ``followerBacklog``, and removed
    /// from the call as soon as the loop ends or is dropped.
    func follow() -> AsyncThrowingStream<Env, any Error> {
        let (stream, continuation) = AsyncThrowingStream<Env, any Error>.makeStream(
            bufferingPolicy: .bufferingOldest(Self.followerBacklog)
        )
        let id = state.withLock { state in
            state.nextFollowerID += 1
            return state.nextFollowerID
        }
        continuation.onTermination = { [weak self] _ in self?.unfollow(id) }
        _ = register(.stream(id: id, continuation))
        return stream
    }

    private func unfollow(_ id: Int) {
        state.withLock { state in
            state.subscribers.removeAll {
                if case .stream(let other, _) = $0 { return other == id }
                return false
            }
        }
    }

    /// The loops following the call now, for tests.
    var followerCount: Int {
        state.withLock { state in
            state.subscribers.count { if case .stream = $0 { true } else { false } }
        }
    }
}
