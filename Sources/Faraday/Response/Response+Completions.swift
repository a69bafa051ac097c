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
                case driving(Completions, AbandonGuard)
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
                    switch await response.acquire() {
                    case .driver(let completions):
                        mode = .driving(completions, AbandonGuard(response: response))
                    case .follower:
                        mode = .following(response.follow().makeAsyncIterator())
                    }
                    return try await next()
                case .driving(let completions, let abandonGuard):
                    mode = .done
                    guard let env = try await response.step(completions) else { return nil }
                    if !env.isFinal { mode = .driving(completions, abandonGuard) }
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
