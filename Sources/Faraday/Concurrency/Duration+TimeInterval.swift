import Foundation

extension Duration {
    /// The duration in seconds, for Foundation and Dispatch APIs.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
