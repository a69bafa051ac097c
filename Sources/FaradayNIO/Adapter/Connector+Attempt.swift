#if NIO
import NIOConcurrencyHelpers
import NIOCore

extension Connector {
    /// The channels one connect made (Happy Eyeballs may try several), closed when it is
    /// cancelled before it finished.
    final class Attempt: Sendable {
        private enum State {
            case opening([any Channel])
            case cancelled
            case finished
        }

        private let state = NIOLockedValueBox(State.opening([]))

        var isCancelled: Bool {
            state.withLockedValue {
                if case .cancelled = $0 { return true }
                return false
            }
        }

        /// Keeps `channel` to close on cancel; `false` when the attempt is cancelled already.
        func adopt(_ channel: any Channel) -> Bool {
            state.withLockedValue { state in
                guard case .opening(let channels) = state else { return false }
                state = .opening(channels + [channel])
                return true
            }
        }

        /// Closes the channels opened so far, unless the attempt has finished.
        func cancel() {
            let channels = state.withLockedValue { state -> [any Channel] in
                guard case .opening(let channels) = state else { return [] }
                state = .cancelled
                return channels
            }
            for channel in channels { channel.close(promise: nil) }
        }

        /// Marks the attempt done, so that a later cancel closes nothing; `false` when it was
        /// cancelled first.
        func finish() -> Bool {
            state.withLockedValue { state in
                guard case .opening = state else { return false }
                state = .finished
                return true
            }
        }
    }
}
#endif
