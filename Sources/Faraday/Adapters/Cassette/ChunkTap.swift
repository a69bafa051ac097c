#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Records each piece of a body as it passes, with the time since the previous one.
final class ChunkTap: BodyTransform {
    private let recorded: Locked<(chunks: [(Data, Double)], last: ContinuousClock.Instant)>

    init(started: ContinuousClock.Instant) {
        recorded = Locked((chunks: [], last: started))
    }

    var chunks: [(Data, Double)] { recorded.withLock { $0.chunks } }

    func transform(_ chunk: Data) throws(FaradayError) -> Data {
        let now = ContinuousClock.now
        recorded.withLock { state in
            let gap = now - state.last
            state.chunks.append((chunk, Double(gap.components.seconds) + Double(gap.components.attoseconds) / 1e18))
            state.last = now
        }
        return chunk
    }

    func finish() throws(FaradayError) -> Data { Data() }
}
