import Faraday
import Foundation
import Testing

/// The handle asks the adapter for a call's executor only when the adapter names executors
/// (``Adapter/namesExecutors``, read once when the stack is built), and then once a call.
@Suite(.timeLimit(.minutes(1))) struct AdapterExecutorTests {
    /// An adapter that answers `200` and counts how often it is asked for an executor.
    private struct CountingAdapter: Adapter {
        let namesExecutors: Bool
        let asked = Locked(0)

        func preferredExecutor(for request: Request) -> (any TaskExecutor)? {
            asked.withLock { $0 += 1 }
            return nil
        }

        func call(_ env: Env) async throws(FaradayError) -> Completions {
            var completion = env
            completion.response = ResponseData(status: .ok)
            return .buffered(completion)
        }
    }

    @Test(arguments: [false, true])
    func theExecutorIsAskedForOnlyWhenTheAdapterNamesThem(namesExecutors: Bool) async throws {
        let adapter = CountingAdapter(namesExecutors: namesExecutors)
        let connection = try Connection(url: "https://api.example.com") { $0.adapter = adapter }
        for _ in 0..<3 { _ = try await connection.get("x").value }
        _ = try await connection.get("x").head
        #expect(adapter.asked.withLock { $0 } == (namesExecutors ? 4 : 0))
    }
}
