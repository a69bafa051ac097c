#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Exponential backoff: `base × factor^(retry − 1)`, capped, with random jitter.
public struct Backoff: Sendable {
    /// The wait before the first retry.
    public var base: Duration
    /// How much each wait grows.
    public var factor: Double
    /// The longest wait.
    public var cap: Duration
    /// How much of each wait is random, from 0 (none) to 1 (anywhere between 0 and the wait).
    public var jitter: Double

    /// Creates a backoff; the default waits about 0.5 s, 1 s, 2 s… up to 30 s, half of it random.
    public init(
        base: Duration = .milliseconds(500),
        factor: Double = 2,
        cap: Duration = .seconds(30),
        jitter: Double = 0.5
    ) {
        self.base = base
        self.factor = factor
        self.cap = cap
        self.jitter = min(max(jitter, 0), 1)
    }

    /// No wait at all.
    public static let none = Backoff(base: .zero, factor: 1, cap: .zero, jitter: 0)

    /// The wait before retry number `retry` (from 1).
    public func delay(beforeRetry retry: Int, random: Double = Double.random(in: 0...1)) -> Duration {
        let exponential = base.timeInterval * pow(factor, Double(max(retry - 1, 0)))
        let capped = min(exponential, cap.timeInterval)
        let seconds = capped * (1 - jitter * random)
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }
}
