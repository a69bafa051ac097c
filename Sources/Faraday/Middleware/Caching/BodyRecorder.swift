#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Hands the bytes of a response body to a store's writer as they pass (after a prefix of stored
/// bytes it joins), up to a limit; the entry is committed when the body has ended whole and the
/// call's final completion comes, or as the part that arrived when the body is cut off.
final class BodyRecorder: BodyTransform {
    private struct State {
        var written = 0
        var isTooLarge = false
        var isFinished = false
        var isDone = false
    }

    private let writer: any CacheEntryWriter
    /// The queue of a disk store's writer, whose room the body's reader waits for.
    private let diskWrites: DiskWrites?
    private let limit: Int
    private let state = Locked(State())

    init(writer: any CacheEntryWriter, limit: Int, prefix: Data = Data()) {
        self.writer = writer
        self.diskWrites = (writer as? DiskEntryWriter)?.store.writes
        self.limit = limit
        if !prefix.isEmpty {
            writer.append(prefix)
            state.withLock { $0.written = prefix.count }
        }
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

    /// A disk behind the network holds the body's reader back here, past 8 MiB queued, while
    /// this body is still being written.
    func waitForRoom() async {
        guard let diskWrites, !state.withLock({ $0.isTooLarge || $0.isDone }) else { return }
        await diskWrites.waitForRoom()
    }

    /// Commits the entry `assembly` makes of the bytes written (and the stored bytes it appends)
    /// when the whole body was written and `storing` holds; else abandons it.
    func finishCall(storing assembly: EntryAssembly, if storing: Bool) {
        switch end(keeping: storing, wholeBodyOnly: true) {
        case .alreadyEnded: return
        case .abandon: writer.abandon()
        case .keep(let written):
            guard let (entry, suffix) = assembly.entry(written: written), written + suffix.count <= limit else {
                return writer.abandon()
            }
            if !suffix.isEmpty { writer.append(suffix) }
            writer.commit(entry)
        }
    }

    /// For a body cut off halfway: commits the part that arrived when it can be resumed or joined
    /// (`EntryAssembly/part(written:)`) and `storing` holds; else abandons it.
    func keepPart(of assembly: EntryAssembly, if storing: Bool) {
        switch end(keeping: storing, wholeBodyOnly: false) {
        case .alreadyEnded: return
        case .abandon: writer.abandon()
        case .keep(let written):
            guard let part = assembly.part(written: written) else { return writer.abandon() }
            writer.commit(part)
        }
    }

    private enum Ending {
        case alreadyEnded, abandon
        case keep(written: Int)
    }

    /// Ends the recording, once.
    private func end(keeping: Bool, wholeBodyOnly: Bool) -> Ending {
        state.withLock { state in
            guard !state.isDone else { return .alreadyEnded }
            state.isDone = true
            guard keeping, state.isFinished || !wholeBodyOnly, !state.isTooLarge else { return .abandon }
            return .keep(written: state.written)
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
