import FaradayTestSupport
import Foundation
import Testing

@testable import Faraday

/// A small compressed body cannot make a buffered call hold much more than
/// ``RequestOptions/maxBufferedBodySize`` (urllib3 CVE-2025-66471): the body is decoded a piece at a
/// time and the call fails with `bodyTooLarge` as soon as the decoded bytes pass the limit.
@Suite(.serialized, .timeLimit(.minutes(2))) struct DecompressionBombTests {
    /// About 4 MB of concatenated gzip members, each 1 MiB of zeros: 4 GiB decoded.
    static let bomb: Data = {
        let member = Data(base64Encoded: DecompressionTests.megabyteOfZerosGzip) ?? Data()
        var bomb = Data(capacity: member.count * 4000)
        for _ in 0..<4000 { bomb.append(member) }
        return bomb
    }()

    static let limit = 16 << 20

    /// Counts what the transform below it makes, so a test sees how far decoding went.
    final class Counting: BodyTransform, @unchecked Sendable {
        // `@unchecked Sendable`: `produced` is only touched under `lock`.
        private let base: any BodyTransform
        private let lock = Locked(0)
        var produced: Int { lock.withLock { $0 } }

        init(_ base: any BodyTransform) { self.base = base }

        func transform(_ chunk: Data) throws(FaradayError) -> Data { count(try base.transform(chunk)) }
        func finish() throws(FaradayError) -> Data { count(try base.finish()) }

        private func count(_ data: Data) -> Data {
            lock.withLock { $0 += data.count }
            return data
        }
    }

    @Test(arguments: [Decompression.Limits(), Decompression.Limits(maximumRatio: 100_000)])
    func aBufferedBombStopsAtTheBufferedLimit(_ limits: Decompression.Limits) throws {
        let counting = Counting(try ContentDecoder(coding: .gzip, limits: limits))
        #expect(Self.bomb.count > 4_000_000)
        #expect(throws: FaradayError.self) {
            try TransformedChunks.apply([counting], to: Self.bomb, limit: Self.limit)
        }
        // Decoding stopped within one small piece of the limit, not at the decompressor's 1 GiB.
        #expect(counting.produced < Self.limit + (1 << 20), "decoded \(counting.produced) bytes")
    }

    @Test func aBufferedBombFailsWithBodyTooLargeThroughTheStack() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/bomb") { _, _ in StubResponse(headers: [.contentEncoding: "gzip"], body: Self.bomb) }
        // Limits that let the ratio through, as a user who raised them would: the buffered limit still holds.
        let connection = try Connection(url: "https://example.com/v1") { builder in
            builder.use(Decompression.Handler(limits: .init(maximumRatio: 100_000)))
            builder.adapter = stubs
        }
        _ = Self.bomb.count  // made before the measure
        let peakBefore = ProcessMemory.peak
        await #expect {
            try await connection.get("bomb") { $0.options.maxBufferedBodySize = Self.limit }.value
        } throws: { error in
            (error as? FaradayError)?.code == .bodyTooLarge
        }
        // Before pieces, this call grew the process by about 1 GiB. (Another test running at the same
        // moment can only raise the peak; the deterministic bound is the test above.)
        let growth = ProcessMemory.peak - peakBefore
        #expect(growth < 256 << 20, "peak memory grew by \(growth >> 20) MiB")
    }

    @Test func aBodyUnderTheLimitDecodesWhole() throws {
        let members = Self.bomb.prefix(Self.bomb.count / 4000 * 3)  // three members: 3 MiB decoded
        let body = try TransformedChunks.apply(
            [try ContentDecoder(coding: .gzip, limits: .init(maximumRatio: 100_000))],
            to: Data(members),
            limit: Self.limit
        )
        #expect(body.count == 3 << 20)
        #expect(body.allSatisfy { $0 == 0 })
    }
}
