#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Pulls a streamed response's bytes and cuts them into frames as its ``Streaming`` asks:
/// framing, the frame-size and frame-count limits, and the idle timeout between frames.
struct FrameReader {
    private var chunks: ByteStream.AsyncIterator
    private var framer: any FrameCutter
    private var pending: [Frame] = []
    private var delivered = 0
    private var ended = false
    private let streaming: Streaming
    private let cancellation: CancellationToken
    /// Stops the transfer when ``Streaming/maxFrames`` ends the stream early: the call ends
    /// normally, so its cancellation is left alone (a stream whose producer has no stop ends when
    /// its iterator, held here, is dropped).
    private let stopTransfer: (@Sendable () -> Void)?

    init(
        chunks: ByteStream,
        streaming: Streaming,
        cancellation: CancellationToken,
        stopTransfer: (@Sendable () -> Void)?
    ) {
        self.chunks = chunks.makeAsyncIterator()
        self.framer = streaming.makeFramer()
        self.streaming = streaming
        self.cancellation = cancellation
        self.stopTransfer = stopTransfer
    }

    /// The next frame, or `nil` at the end of the stream (or after ``Streaming/maxFrames``).
    mutating func next() async throws -> Frame? {
        if let maximum = streaming.maxFrames, delivered >= maximum {
            if !ended {
                ended = true
                stopTransfer?()
            }
            return nil
        }
        let deadline = streaming.idleTimeout.map { Deadline(after: $0, cancelling: cancellation) }
        defer { deadline?.stop() }
        do {
            while pending.isEmpty {
                guard !ended else { return nil }
                if let chunk = try await chunks.next() {
                    pending = try framer.frames(from: chunk)
                } else {
                    ended = true
                    pending = try framer.finish()
                }
            }
        } catch {
            if let deadline, deadline.hasPassed, let idle = streaming.idleTimeout {
                throw FaradayError(.readTimeout, "No frame arrived within the \(idle) idle timeout.")
            }
            throw error
        }
        let frame = pending.removeFirst()
        if case .custom = streaming.kind, frame.body.count > streaming.maxFrameSize {
            throw FaradayError.frameTooLarge(streaming.maxFrameSize)
        }
        delivered += 1
        return frame
    }
}
