import Foundation

/// Where a call is, and who is waiting for it.
struct CallState {
    enum Phase {
        /// Not started; holds the stack to run.
        case idle(Starter)
        /// A task is running the stack up to the response head.
        case starting
        /// The head is known; nobody pulls the completions yet.
        case ready(Completions)
        /// A consumer (the driver) pulls the completions.
        case pulling(Completions)
        /// The final env (with ``Env/error`` set when the call failed).
        case finished(Env)
    }

    /// A consumer of the completions other than the driver.
    enum Subscriber {
        case complete(@Sendable (Env) -> Void)
        case success(@Sendable (Env) -> Void)
        case failure(@Sendable (FaradayError) -> Void)
        /// A second loop over ``Response/completions``, told apart by `id` so that it can leave.
        case stream(id: Int, AsyncThrowingStream<Env, any Error>.Continuation)
    }

    /// The stack to run, in a struct so that taking it out of the lock copies no closure thunk.
    struct Starter {
        let start: Response.Start
    }

    var phase: Phase
    var subscribers: [Subscriber] = []
    var headWaiters: [@Sendable (Result<Env, FaradayError>) -> Void] = []
    var finishWaiters: [@Sendable (Env) -> Void] = []
    /// The id of the next following loop.
    var nextFollowerID = 0
    /// The task that runs the call for callbacks and `wait`, when one does.
    var driver: Task<Void, Never>?
    /// The driver is inside ``Response/step(_:)``: pulling from the adapter or running callbacks.
    var isStepping = false

    /// Everyone waiting for the end of the call.
    struct Waiting {
        var subscribers: [Subscriber]
        var headWaiters: [@Sendable (Result<Env, FaradayError>) -> Void]
        var finishWaiters: [@Sendable (Env) -> Void]
    }

    /// The env with status and headers, once the head is known.
    var head: Env? {
        switch phase {
        case .idle, .starting: return nil
        case .ready(let completions), .pulling(let completions): return completions.head
        case .finished(let env):
            guard env.response != nil else { return nil }
            var head = env
            head.response?.body = Data()
            head.phase = .request
            return head
        }
    }

    /// Takes the waiting lists out, leaving them empty.
    mutating func takeWaiting() -> Waiting {
        defer {
            subscribers = []
            headWaiters = []
            finishWaiters = []
        }
        return Waiting(subscribers: subscribers, headWaiters: headWaiters, finishWaiters: finishWaiters)
    }
}
