#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Response {
    /// The completions of a call as an asynchronous sequence; see ``Response/completions``.
    ///
    /// The first iterator to start pulls the response itself (with backpressure); an iterator made
    /// while another consumer pulls receives the completions from then on. Such a following loop
    /// may fall at most 256 completions behind the one that pulls: past that it reads what it
    /// has not read yet, then fails with ``FaradayError/Code/bodyTooLarge``. A following loop
    /// that ends or is dropped stops receiving at once.
    public struct CompletionSequence: AsyncSequence, Sendable {
        /// One completion.
        public typealias Element = Env
        /// Every failure is a ``FaradayError``.
        public typealias Failure = FaradayError
        let response: Response

        /// Makes an iterator.
        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(response: response) }

        /// Iterates the completions.
        public struct AsyncIterator: AsyncIteratorProtocol {
            /// Every failure is a ``FaradayError``.
            public typealias Failure = FaradayError

            private enum Mode {
                case notStarted
                case pulling(Completions, AbandonGuard)
                case following(AsyncThrowingStream<Env, any Error>.AsyncIterator)
                case done
            }

            private let response: Response
            private var mode = Mode.notStarted

            init(response: Response) { self.response = response }

            /// The next completion; `nil` after the final one.
            public mutating func next() async throws(FaradayError) -> Env? {
                switch mode {
                case .notStarted:
                    if let completions = await response.claimPull() {
                        mode = .pulling(completions, AbandonGuard(response: response))
                    } else {
                        mode = .following(response.follow().makeAsyncIterator())
                    }
                    return try await next()
                case .pulling(let completions, let abandonGuard):
                    mode = .done
                    guard try response.resume() else { return nil }
                    let env = try await response.step(completions)
                    if !env.isFinal {
                        response.pause()
                        mode = .pulling(completions, abandonGuard)
                    }
                    return env
                case .following(var iterator):
                    mode = .done
                    let next: Env?
                    do {
                        next = try await iterator.next()
                    } catch {
                        throw FaradayError.wrapping(error, request: response.request)
                    }
                    // The stream ends after the final completion, or early when this loop's task
                    // is cancelled: that is a cancellation, not the end of the response.
                    guard let env = next else {
                        if Task.isCancelled { throw Response.cancelledError.attaching(response.request) }
                        return nil
                    }
                    mode = .following(iterator)
                    return env
                case .done:
                    return nil
                }
            }
        }
    }
}

/// Cancels a call when the loop that pulls it is left before the final completion.
private final class AbandonGuard {
    let response: Response
    init(response: Response) { self.response = response }
    deinit {
        if !response.isFinished { response.abandon() }
    }
}

/// A second loop over one handle's completions: one more callback, which follows the loop that
/// pulls the call through a bounded buffer and leaves the call as soon as it ends or is dropped.
extension Response {
    /// The most completions a following loop may fall behind the loop that pulls the call: past
    /// it, the follower gets what it has not read yet, then ``FaradayError/Code/bodyTooLarge``,
    /// rather than hold every frame of a long stream.
    static let followerBacklog = 256

    /// A following loop's completions from now on.
    func follow() -> AsyncThrowingStream<Env, any Error> {
        let (stream, continuation) = AsyncThrowingStream<Env, any Error>.makeStream(
            bufferingPolicy: .bufferingOldest(Self.followerBacklog)
        )
        let id = state.withLock { state in
            state.lastFollowerID += 1
            return state.lastFollowerID
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { $0.callbacks.removeAll { $0.id == id } }
        }
        addCallback(id: id) { env in
            if env.isFinal, let error = env.error { return continuation.finish(throwing: error) }
            guard case .dropped = continuation.yield(env) else {
                if env.isFinal { continuation.finish() }
                return
            }
            continuation.finish(
                throwing: FaradayError(
                    .bodyTooLarge,
                    "This loop over the completions fell more than \(Self.followerBacklog) completions behind the loop that pulls the call.",
                    method: env.request.method,
                    url: env.request.url
                )
            )
        }
        return stream
    }

    /// The loops following the call now, for tests.
    var followerCount: Int {
        state.withLock { state in state.callbacks.count { $0.id != 0 } }
    }
}
