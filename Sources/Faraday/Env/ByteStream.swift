import Foundation

/// A type-erased asynchronous sequence of byte chunks.
public struct ByteStream: AsyncSequence, Sendable {
    /// One chunk of bytes.
    public typealias Element = Data
    private let base: any AsyncSequence<Data, any Error> & Sendable

    /// Wraps any sequence of `Data` chunks.
    public init<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks) where Chunks.Element == Data {
        self.base = ErasedErrors(base: chunks)
    }

    /// Iterates the chunks.
    public struct AsyncIterator: AsyncIteratorProtocol {
        fileprivate var base: any AsyncIteratorProtocol<Data, any Error>

        /// The next chunk, or `nil` at the end.
        public mutating func next() async throws -> Data? { try await base.next(isolation: nil) }
    }

    /// Makes an iterator.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator()) }
}

/// Presents any sequence's failure type as `any Error`.
private struct ErasedErrors<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == Data {
    typealias Element = Data
    typealias Failure = any Error
    let base: Base

    struct AsyncIterator: AsyncIteratorProtocol {
        typealias Element = Data
        typealias Failure = any Error
        var base: Base.AsyncIterator
        mutating func next() async throws -> Data? { try await base.next() }
        mutating func next(isolation actor: isolated (any Actor)?) async throws(any Error) -> Data? {
            try await base.next(isolation: actor)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator()) }
}
