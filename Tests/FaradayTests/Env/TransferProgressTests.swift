import Foundation
import HTTPTypes
import Testing

@testable import Faraday

/// The progress a custom adapter reports through `env.reportProgress`, as the handle passes it on.
@Suite struct TransferProgressTests {
    /// An adapter that reports the steps it is given, then answers 200 with `body`.
    private struct ReportingAdapter: Adapter {
        var uploads: [(Int64, Int64?)] = []
        var downloads: [(Int64, Int64?)] = []
        var fails = false
        /// Holds the answer back until it ends.
        var gate: AsyncStream<Void>?

        func call(_ env: Env) async throws(FaradayError) -> Completions {
            for (sent, total) in uploads { env.reportProgress(sent: sent, of: total) }
            for (received, total) in downloads { env.reportProgress(received: received, of: total) }
            if let gate { for await _ in gate {} }
            if fails { throw FaradayError(.connectionFailed, "cut") }
            var completion = env
            completion.response = ResponseData(status: .ok)
            return .buffered(completion)
        }
    }

    private func values(
        _ adapter: ReportingAdapter,
        _ direction: KeyPath<Response, AsyncStream<TransferProgress>> = \.downloadProgress
    ) async throws -> [TransferProgress] {
        let connection = try Connection(url: "https://example.test") { $0.adapter = adapter }
        let response = connection.get("file")
        let progress = response[keyPath: direction]
        _ = try? await response.value
        var values: [TransferProgress] = []
        for await value in progress { values.append(value) }
        return values
    }

    /// The observer reads only after the call: its buffer (the newest 128) holds every value.
    @Test func stepsOfAKnownLengthPassOncePerPercent() async throws {
        let steps = (0...10_000).map { (Int64($0), Int64?(10_000)) }
        let values = try await values(ReportingAdapter(downloads: steps))
        #expect(values.first == TransferProgress(completedBytes: 0, totalBytes: 10_000))
        #expect(values.last == TransferProgress(completedBytes: 10_000, totalBytes: 10_000))
        #expect(values.count == 101)
        #expect(zip(values, values.dropFirst()).allSatisfy { $1.completedBytes - $0.completedBytes >= 100 })
    }

    @Test func anUnknownLengthPassesTheFirstAndTheLastWithItsTotal() async throws {
        let steps = (0...1000).map { (Int64($0), Int64?.none) }
        let values = try await values(ReportingAdapter(downloads: steps))
        #expect(values.first == TransferProgress(completedBytes: 0, totalBytes: nil))
        #expect(values.last == TransferProgress(completedBytes: 1000, totalBytes: 1000))
    }

    @Test func aSlowObserverKeepsTheNewestValues() async throws {
        // One step per byte, a byte a percent: more steps pass than the buffer holds.
        let steps = (0...1000).map { (Int64($0), Int64?(100)) }
        let values = try await values(ReportingAdapter(downloads: steps))
        #expect(values.count == 128)
        #expect(values.last == TransferProgress(completedBytes: 1000, totalBytes: 1000))
    }

    /// A transfer that stalls right after a value the throttle held back: the observer still
    /// gets it, when the interval is over (without that, this test would hang).
    @Test(.timeLimit(.minutes(1))) func aHeldBackValueIsPassedOnWhenTheTransferStalls() async throws {
        let (gate, open) = AsyncStream<Void>.makeStream()
        let adapter = ReportingAdapter(downloads: [(0, nil), (5, nil)], gate: gate)
        let connection = try Connection(url: "https://example.test") { $0.adapter = adapter }
        let response = connection.get("file")
        let progress = response.downloadProgress
        let call = Task { try await response.value }
        for await value in progress where value.completedBytes == 5 { open.finish() }
        _ = try await call.value
    }

    /// An observer whose task is cancelled is forgotten at once, not at the end of the call.
    @Test(.timeLimit(.minutes(1))) func anObserverThatStopsListeningIsForgotten() async throws {
        let (gate, open) = AsyncStream<Void>.makeStream()
        let connection = try Connection(url: "https://example.test") {
            $0.adapter = ReportingAdapter(downloads: [(0, 10)], gate: gate)
        }
        let response = connection.get("file")
        let call = Task { try await response.value }
        let observer = Task { for await _ in response.downloadProgress {} }
        while response.cancellation.progressHub?.subscriberCount(.download) != 1 { await Task.yield() }
        let hub = try #require(response.cancellation.progressHub)
        observer.cancel()
        await observer.value
        #expect(hub.subscriberCount(.download) == 0)
        open.finish()
        _ = try await call.value
    }

    @Test func aNewAttemptCountsFromZeroAgain() async throws {
        let values = try await values(
            ReportingAdapter(uploads: [(500, 1000), (1000, 1000), (0, 1000)]),
            \.uploadProgress
        )
        #expect(values.map(\.completedBytes) == [500, 1000, 0, 0])
        #expect(values.last?.totalBytes == 0)
    }

    @Test func aFailedCallEndsWithoutALastValue() async throws {
        let values = try await values(ReportingAdapter(downloads: [(0, 100), (50, 100)], fails: true))
        #expect(
            values == [
                TransferProgress(completedBytes: 0, totalBytes: 100),
                TransferProgress(completedBytes: 50, totalBytes: 100),
            ]
        )
    }

    @Test func aCallWithoutTransfersEndsItsSequencesEmpty() async throws {
        #expect(try await values(ReportingAdapter()).isEmpty)
        #expect(try await values(ReportingAdapter(), \.uploadProgress).isEmpty)
    }

    @Test func aHandleThatFailedBeforeStartingEndsItsSequencesAtOnce() async throws {
        let connection = try Connection(url: "https://example.test") { $0.adapter = TestAdapter() }
        let response = connection.run(method: "BAD METHOD")
        var count = 0
        for await _ in response.downloadProgress { count += 1 }
        #expect(count == 0)
    }

    @Test(
        arguments: [
            ("GET", 200, "42", Int64?(42)), ("HEAD", 200, "42", 0), ("GET", 204, nil, 0), ("GET", 304, "42", 0),
            ("GET", 200, nil, nil), ("GET", 200, "-1", nil), ("GET", 200, "4 2", nil), ("GET", 200, "", nil),
            ("GET", 200, "99999999999999999999", nil),
        ] as [(String, Int, String?, Int64?)]
    )
    func theExpectedLengthOfAResponseBody(_ method: String, _ status: Int, _ length: String?, _ expected: Int64?) {
        let method = HTTPRequest.Method(method)!
        #expect(
            TransferProgress.expectedBodyLength(method: method, status: status, contentLength: length)
                == expected
        )
    }

    @Test func fractionCompleted() {
        #expect(TransferProgress(completedBytes: 5, totalBytes: 10).fractionCompleted == 0.5)
        #expect(TransferProgress(completedBytes: 0, totalBytes: 0).fractionCompleted == 1)
        #expect(TransferProgress(completedBytes: 5, totalBytes: nil).fractionCompleted == nil)
        #expect(TransferProgress(completedBytes: 5, totalBytes: 10).description == "5/10 bytes")
    }
}
