#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A type-erased asynchronous sequence of byte chunks. What its source throws comes out as a
/// ``FaradayError`` (another error as ``FaradayError/Code/unknown``, with it as the underlying one).
public struct ByteStream: AsyncSequence, Sendable {
    /// One chunk of bytes.
    public typealias Element = Data
    /// Every failure is a ``FaradayError``.
    public typealias Failure = FaradayError
    // Erased behind protocols of this file, not `any AsyncSequence<Data, any Error>`: the
    // `Failure` type that spelling needs is macOS 15 / iOS 18 and later.
    private let base: any ErasedChunks

    /// Wraps any sequence of `Data` chunks.
    public init<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks) where Chunks.Element == Data {
        self.base = ErasedErrors(base: chunks)
    }

    /// Iterates the chunks.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// Every failure is a ``FaradayError``.
        public typealias Failure = FaradayError
        fileprivate var base: any ErasedChunkIterator

        /// The next chunk, or `nil` at the end.
        public mutating func next() async throws(FaradayError) -> Data? {
            do {
                return try await base.next()
            } catch {
                throw FaradayError.wrapping(error)
            }
        }
    }

    /// Makes an iterator.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeErasedIterator()) }
}

extension ByteStream {
    /// Every chunk joined; fails with ``FaradayError/Code/bodyTooLarge`` past `limit` bytes,
    /// naming `what` ("The request body"), and with what the stream threw, as a ``FaradayError``.
    func collect(upTo limit: Int, _ what: String) async throws(FaradayError) -> Data {
        var data = Data()
        var chunks = makeAsyncIterator()
        while let chunk = try await chunks.next() {
            guard data.count + chunk.count <= limit else {
                throw FaradayError(.bodyTooLarge, "\(what) is larger than \(limit) bytes.")
            }
            data.append(chunk)
        }
        return data
    }
}

/// A sequence of chunks whose own type is forgotten.
private protocol ErasedChunks: Sendable {
    func makeErasedIterator() -> any ErasedChunkIterator
}

/// The iterator of an `ErasedChunks`: the chunks, any failure as `any Error`.
private protocol ErasedChunkIterator {
    mutating func next() async throws -> Data?
}

/// Presents any sequence's failure type as `any Error`.
private struct ErasedErrors<Base: AsyncSequence & Sendable>: ErasedChunks where Base.Element == Data {
    let base: Base

    struct Iterator: ErasedChunkIterator {
        var base: Base.AsyncIterator
        mutating func next() async throws -> Data? { try await base.next() }
    }

    func makeErasedIterator() -> any ErasedChunkIterator { Iterator(base: base.makeAsyncIterator()) }
}
