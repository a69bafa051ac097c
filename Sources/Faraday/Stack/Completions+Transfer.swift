#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Completions {
    /// A streamed response whose frames an adapter pulls from a live transfer.
    ///
    /// Until the transfer ends, cancelling the call (from the handle, `env.cancel()`, or the task
    /// that pulls) runs `cancelTransfer`, even while nobody is pulling; so does a response dropped
    /// or discarded before its end. Errors from `nextFrame` are turned into ``FaradayError``s by
    /// `mapError`.
    ///
    /// - Parameters:
    ///   - head: the env with status and headers.
    ///   - nextFrame: the next piece of the body, `nil` at its end.
    ///   - cancelTransfer: stops the transfer (closes the connection or cancels the task).
    ///   - mapError: maps a transport error to a ``FaradayError``.
    public static func streamed(
        head: Env,
        nextFrame: @escaping @Sendable () async throws -> Data?,
        cancelTransfer: @escaping @Sendable () -> Void,
        mapError: @escaping @Sendable (any Error) -> FaradayError
    ) -> Completions {
        let registration = head.cancellation.onCancel(cancelTransfer)
        let transfer = TransferFrames(
            cancellation: head.cancellation,
            registration: registration,
            nextFrame: nextFrame,
            cancelTransfer: cancelTransfer,
            mapError: mapError
        )
        return .streamed(head: head, frames: ByteStream(transfer)) {
            head.cancellation.removeHandler(registration)
            cancelTransfer()
        }
    }
}

/// The frames of a live transfer, as ``Completions/streamed(head:nextFrame:cancelTransfer:mapError:)`` pulls them.
private struct TransferFrames: AsyncSequence, Sendable {
    let cancellation: CancellationToken
    let registration: CancellationToken.Registration?
    let nextFrame: @Sendable () async throws -> Data?
    let cancelTransfer: @Sendable () -> Void
    let mapError: @Sendable (any Error) -> FaradayError

    struct AsyncIterator: AsyncIteratorProtocol {
        let frames: TransferFrames

        mutating func next() async throws -> Data? {
            let frames = self.frames
            do {
                // The call's token stops the transfer through the registration made once for
                // it; the task that pulls is watched here, frame by frame.
                let frame = try await withTaskCancellationHandler(
                    operation: frames.nextFrame,
                    onCancel: frames.cancelTransfer
                )
                if frame == nil { frames.cancellation.removeHandler(frames.registration) }
                return frame
            } catch {
                frames.cancellation.removeHandler(frames.registration)
                throw frames.mapError(error)
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(frames: self) }
}
