#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Rewrites a response body's bytes on their way up, before they are cut into frames and reach
/// any hook: each chunk in order, then the end. Buffered bodies are one chunk.
///
/// Made afresh for each response (it may keep state between chunks, as a decompressor does).
package protocol BodyTransform: Sendable {
    /// The bytes `chunk` turns into (possibly none yet).
    func transform(_ chunk: Data) throws(FaradayError) -> Data
    /// The bytes left when the body ends; throws when the body ended too early.
    func finish() throws(FaradayError) -> Data
    /// Returns when the transform can take more: the reader waits here before it reads on, so
    /// that a transform whose output falls behind (a cache's disk) holds back the body, not a
    /// thread. Returns at once unless a transform says otherwise.
    func waitForRoom() async
}

extension BodyTransform {
    package func waitForRoom() async {}
}

extension Completions {
    /// Reads a response's bytes into completions: the whole body as one final completion, or
    /// frame by frame when the request asks for streaming.
    struct Reader {
        private enum Source {
            case whole(Data, [any BodyTransform])
            case frames(FrameReader)
            case done
        }

        private var source: Source
        private var nextIndex = 0

        init(body: Body, transforms: [any BodyTransform], head: Env) {
            let streaming = head.request.options.streaming
            let chunks: ByteStream
            switch body {
            case .whole(let data):
                guard streaming != nil else {
                    source = .whole(data, transforms)
                    return
                }
                chunks = ByteStream(SingleChunk(data: data))
            case .stream(let stream, _):
                chunks = stream
            }
            let transformed =
                transforms.isEmpty ? chunks : ByteStream(TransformedChunks(base: chunks, transforms: transforms))
            source = .frames(
                FrameReader(
                    chunks: transformed,
                    streaming: streaming ?? .chunks,
                    cancellation: head.cancellation,
                    stopTransfer: body.stop
                )
            )
        }

        /// Fills `env` (a copy of the head) with the next completion's body and phase.
        mutating func next(into env: inout Env) async throws {
            switch source {
            case .whole(let data, let transforms):
                source = .done
                let limit = env.request.options.maxBufferedBodySize
                env.response?.body = try TransformedChunks.apply(transforms, to: data, limit: limit)
                await TransformedChunks.waitForRoom(in: transforms)
                env.phase = .final
            case .frames(var frames):
                source = .done
                if let frame = try await frames.next() {
                    env.setFrame(frame)
                    env.phase = .frame(nextIndex)
                    nextIndex += 1
                    source = .frames(frames)
                } else {
                    env.phase = .final
                }
            case .done:
                env.phase = .final
            }
        }
    }
}

/// The chunks of a body through a chain of transforms.
struct TransformedChunks: AsyncSequence, Sendable {
    let base: ByteStream
    let transforms: [any BodyTransform]

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: ByteStream.AsyncIterator
        let transforms: [any BodyTransform]
        var isDone = false

        mutating func next() async throws -> Data? {
            guard !isDone else { return nil }
            while let chunk = try await base.next() {
                let out = try TransformedChunks.push(chunk, through: transforms[...])
                await TransformedChunks.waitForRoom(in: transforms)
                if !out.isEmpty { return out }
            }
            isDone = true
            let rest = try TransformedChunks.finish(transforms)
            return rest.isEmpty ? nil : rest
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), transforms: transforms)
    }

    /// `data` through every transform of `transforms`, in order.
    static func push(_ data: Data, through transforms: ArraySlice<any BodyTransform>) throws(FaradayError) -> Data {
        var data = data
        for transform in transforms where !data.isEmpty { data = try transform.transform(data) }
        return data
    }

    /// Returns once every transform of `transforms` can take more.
    static func waitForRoom(in transforms: [any BodyTransform]) async {
        for transform in transforms { await transform.waitForRoom() }
    }

    /// Ends each transform in order, passing what it leaves through the ones after it.
    static func finish(_ transforms: [any BodyTransform]) throws(FaradayError) -> Data {
        var rest = Data()
        for index in transforms.indices {
            rest = try push(rest, through: transforms[index...index])
            rest.append(try transforms[index].finish())
        }
        return rest
    }

    /// The most of a whole body that goes through the chain at a time.
    static let pieceSize = 16 * 1024
    /// The most bytes zlib makes of one (deflate's best ratio is about 1,032 to 1).
    static let largestGrowth = 1032

    /// A whole body through the chain, a piece at a time, failing with
    /// ``FaradayError/Code/bodyTooLarge`` as soon as what came out passes `limit`: a small
    /// compressed body never grows to the decompressor's own limits first (urllib3
    /// CVE-2025-66471). Each piece is small enough that even at deflate's best ratio it cannot
    /// take the output more than about 64 KiB past the limit. (Brotli's and Zstandard's ratios
    /// have no such bound: ``Decompression``'s decoder checks the same limit as it writes.)
    static func apply(_ transforms: [any BodyTransform], to data: Data, limit: Int) throws(FaradayError) -> Data {
        guard !transforms.isEmpty else { return data }
        var body = Data()
        var start = data.startIndex
        repeat {
            let budget = Swift.max(64, (limit - body.count) / largestGrowth + 1)
            let end =
                data.index(start, offsetBy: Swift.min(pieceSize, budget), limitedBy: data.endIndex) ?? data.endIndex
            // A piece of its own (indices from 0), as a transform is handed any chunk.
            body.append(try push(Data(data[start..<end]), through: transforms[...]))
            try check(body.count, limit)
            start = end
        } while start < data.endIndex
        body.append(try finish(transforms))
        try check(body.count, limit)
        return body
    }

    private static func check(_ count: Int, _ limit: Int) throws(FaradayError) {
        guard count > limit else { return }
        throw FaradayError(
            .bodyTooLarge,
            "The decoded response body is larger than \(limit) bytes (RequestOptions.maxBufferedBodySize)."
        )
    }
}
