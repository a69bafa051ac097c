/// A connection-wide allowance of retries that stops retry storms: each request earns a fraction
/// of a retry, each retry spends one, and when the balance is spent requests are not retried
/// until new requests earn more (the retry budgets of Finagle and gRPC).
///
/// With the defaults, retries add at most about 20% to the load once the initial reserve of 10
/// is used up, however many requests fail.
public final class RetryBudget: Sendable {
    private let state: Locked<Double>
    private let ratio: Double
    private let maximum: Double

    /// Creates a budget.
    ///
    /// - Parameters:
    ///   - ratio: the retries each request earns.
    ///   - reserve: the retries available at the start, and the most that can be saved up.
    public init(ratio: Double = 0.2, reserve: Int = 10) {
        self.ratio = ratio
        self.maximum = Double(reserve)
        self.state = Locked(Double(reserve))
    }

    /// The retries available now.
    public var balance: Double { state.snapshot }

    /// Notes a request (it earns its share).
    func deposit() {
        state.withLock { $0 = min($0 + ratio, maximum) }
    }

    /// Takes one retry, or returns `false` when there is none left.
    func withdraw() -> Bool {
        state.withLock { balance in
            guard balance >= 1 else { return false }
            balance -= 1
            return true
        }
    }
}
