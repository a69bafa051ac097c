import Faraday
import FaradayNIO
import Foundation
import Testing

@testable import FaradayAsyncHTTPClient

extension AdapterConformance {
    /// AsyncHTTPClient's delegate, through the exchange it shares with NIOAdapter, resumes every
    /// waiter on every ending (issue 45: a transfer that ended without a head left the head waiter
    /// waiting for ever). Its held reads are shown by `StreamingTests.aSlowConsumerHoldsTheServerBack`.
    @Suite(.timeLimit(.minutes(1))) struct ResponseDelegateTests {
        private func delegate(streams: Bool) throws -> ResponseDelegate {
            var request = Request(method: .get, url: try #require(URL(string: "http://127.0.0.1/")))
            if streams { request.options.streaming = .chunks }
            return ResponseDelegate(request: request, progress: Env(request: request))
        }

        @Test(arguments: [true, false])
        func anEndWithoutAHeadFailsTheWaiter(streams: Bool) async throws {
            let delegate = try delegate(streams: streams)
            let waiting = Task { try await delegate.exchange.head() }
            while !delegate.exchange.isWaitingForHead && !Task.isCancelled { await Task.yield() }
            delegate.exchange.finish()
            let error = await #expect(throws: FaradayError.self) { try await waiting.value }
            #expect(error?.code == .invalidResponse)
        }

        @Test(arguments: [true, false])
        func aHeadAskedForAfterAnEndWithoutOneFails(streams: Bool) async throws {
            let delegate = try delegate(streams: streams)
            delegate.exchange.finish()
            await #expect(throws: FaradayError.self) { try await delegate.exchange.head() }
        }
    }
}
