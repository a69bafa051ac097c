import Foundation

/// Hands the bytes of a response body to a store's writer as they pass, up to a limit; the
/// entry is committed when the body has ended whole and the call's final completion comes.
final class BodyRecorder: BodyTransform {
    private struct State {
        var written = 0
        var isTooLarge = false
        var isFinished = false
        var isDone = false
    }

    private let writer: any CacheEntryWriter
    private let limit: Int
    private let state = Locked(State())

    init(writer: any CacheEntryWriter, limit: Int) {
        self.writer = writer
        self.limit = limit
    }

    func transform(_ chunk: Data) throws(FaradayError) -> Data {
        let keep = state.withLock { state -> Bool in
            guard !state.isTooLarge, !state.isDone else { return false }
            state.written += chunk.count
            state.isTooLarge = state.written > limit
            return !state.isTooLarge
        }
        if keep { writer.append(chunk) } else if state.withLock({ $0.isTooLarge }) { abandon() }
        return chunk
    }

    func finish() throws(FaradayError) -> Data {
        state.withLock { $0.isFinished = true }
        return Data()
    }

    /// Commits `entry` when the whole body was written and `storing` holds; else abandons it.
    func finishCall(storing entry: CacheEntry, if storing: Bool) {
        let commit = state.withLock { state -> Bool? in
            guard !state.isDone else { return nil }
            state.isDone = true
            return storing && state.isFinished && !state.isTooLarge
        }
        switch commit {
        case true?: writer.commit(entry)
        case false?: writer.abandon()
        case nil: break
        }
    }

    func abandon() {
        guard
            state.withLock({ state -> Bool in
                defer { state.isDone = true }
                return !state.isDone
            })
        else { return }
        writer.abandon()
    }
}
