import Faraday
import FaradayAsyncHTTPClient
import FaradayTestSupport
import Foundation
import Testing

/// AsyncHTTPClientAdapter keeps one client per set of timeouts: callers that vary them per
/// request must not grow it without bound (memory, threads and sockets flat:
/// `Benchmarks/ClientPoolProbe`).
@Suite(.timeLimit(.minutes(3))) struct ClientPoolTests {
    @Test(arguments: [false, true])
    func tenThousandRequestsWithRandomTimeoutsKeepTheClientsBounded(_ streamed: Bool) async throws {
        let server = try await TestServer.start()
        var configuration = AsyncHTTPClientAdapter.Configuration()
        configuration.maximumIdleClients = 3
        let adapter = AsyncHTTPClientAdapter(configuration: configuration)
        let connection = try Connection(url: server.baseURL.absoluteString) { $0.adapter = adapter }
        let concurrency = 8
        let requests = streamed ? 2_000 : 10_000
        let most = try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in 0..<concurrency {
                group.addTask {
                    var most = 0
                    for index in stride(from: worker, to: requests, by: concurrency) {
                        var body = Data()
                        for try await env in connection.get(
                            "echo",
                            configure: { request in
                                // Distinct timeouts for distinct clients, none short enough for a
                                // stall of the shared machine to trip (one of 5 s did, once).
                                request.options.readTimeout = .milliseconds(Int.random(in: 30_000...90_000))
                                if index % 2 == 0 { request.options.writeTimeout = .milliseconds(5_000 + index) }
                                if streamed { request.options.streaming = .chunks }
                            }
                        ).completions {
                            body.append(env.body)
                        }
                        #expect(!body.isEmpty)
                        most = max(most, adapter.clientCount)
                    }
                    return most
                }
            }
            return try await group.reduce(0, max)
        }
        // Each call in flight holds its client; past them, only the idle limit stays.
        #expect(most <= concurrency + configuration.maximumIdleClients)
        #expect(adapter.clientCount <= configuration.maximumIdleClients)
        // Clients that were shut down were idle: every call above completed, and new ones work.
        #expect(try await connection.get("echo").value.status?.code == 200)
        try await adapter.shutdown()
        try await server.shutdown()
    }

    @Test func aStreamInFlightKeepsItsClientWhileOthersComeAndGo() async throws {
        let server = try await TestServer.start()
        var configuration = AsyncHTTPClientAdapter.Configuration()
        configuration.maximumIdleClients = 0
        let adapter = AsyncHTTPClientAdapter(configuration: configuration)
        let connection = try Connection(url: server.baseURL.absoluteString) { $0.adapter = adapter }
        let stream = connection.get(
            "ndjson?bytes=200000",
            configure: { request in
                request.options.readTimeout = .seconds(42)
                request.options.streaming = .ndjson
            }
        )
        var iterator = stream.completions.makeAsyncIterator()
        _ = try await iterator.next()
        for index in 0..<50 {
            _ = try await connection.get("echo") { $0.options.readTimeout = .milliseconds(30_000 + index) }.value
        }
        #expect(adapter.clientCount == 1, "only the stream's client is left")
        var frames = 1
        while let env = try await iterator.next(), !env.isFinal { frames += 1 }
        #expect(frames > 100)
        #expect(adapter.clientCount == 0)
        try await adapter.shutdown()
        try await server.shutdown()
    }
}
