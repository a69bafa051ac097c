// Loopback benchmark: the same work done directly with AsyncHTTPClient and URLSession, and through
// Faraday (empty stack) on each adapter, against one in-process server.
//
//     swift run -c release AdapterBenchmark                   # all scenarios, all clients
//     swift run -c release AdapterBenchmark stream CLIENT     # one streamed download, for peak RSS
//
// Numbers are wall-clock on a shared machine: compare rows measured in the same run.
import AsyncHTTPClient
import Faraday
import FaradayAsyncHTTPClient
import FaradayTestSupport
import Foundation
import NIOCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

enum Client: String, CaseIterable {
    case rawAsyncHTTPClient = "AsyncHTTPClient (raw)"
    case faradayAsyncHTTPClient = "Faraday + AsyncHTTPClientAdapter"
    case rawURLSession = "URLSession (raw)"
    case faradayURLSession = "Faraday + URLSessionAdapter"
}

/// One client set up against the server, able to GET a path and to stream one.
struct Runner {
    let get: @Sendable (String) async throws -> Int
    let stream: @Sendable (String) async throws -> Int
    let shutdown: @Sendable () async throws -> Void

    static func make(_ client: Client, base: URL) throws -> Runner {
        switch client {
        case .rawAsyncHTTPClient:
            var configuration = HTTPClient.Configuration()
            configuration.redirectConfiguration = .disallow
            let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
            return Runner(
                get: { path in
                    let response = try await http.execute(HTTPClientRequest(url: base.absoluteString + "/" + path), timeout: .seconds(30))
                    return try await response.body.collect(upTo: 1 << 26).readableBytes
                },
                stream: { path in
                    let response = try await http.execute(HTTPClientRequest(url: base.absoluteString + "/" + path), timeout: .seconds(600))
                    var total = 0
                    for try await part in response.body { total += part.readableBytes }
                    return total
                },
                shutdown: { try await http.shutdown() })
        case .rawURLSession:
            let session = URLSession(configuration: .ephemeral)
            return Runner(
                get: { path in
                    guard let url = URL(string: base.absoluteString + "/" + path) else { throw BenchmarkError.unsupported }
                    let (data, _) = try await session.data(from: url)
                    return data.count
                },
                stream: { _ in throw BenchmarkError.unsupported },
                shutdown: { session.invalidateAndCancel() })
        case .faradayAsyncHTTPClient, .faradayURLSession:
            let adapter: any Adapter = client == .faradayAsyncHTTPClient ? AsyncHTTPClientAdapter() : URLSessionAdapter()
            let connection = try Connection(url: base.absoluteString) { $0.adapter = adapter }
            return Runner(
                get: { path in try await connection.get(path).value.body.count },
                stream: { path in
                    var total = 0
                    for try await env in connection.get(path, configure: { $0.options.streaming = .chunks }).completions {
                        total += env.body.count
                    }
                    return total
                },
                shutdown: { try await (adapter as? AsyncHTTPClientAdapter)?.shutdown() })
        }
    }
}

enum BenchmarkError: Error { case unsupported, shortBody }

func cpuSeconds() -> Double {
    var usage = rusage()
    #if os(Linux)
    getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

func measure(_ label: String, requests: Int, _ body: () async throws -> Void) async rethrows -> Double {
    let cpuBefore = cpuSeconds()
    let start = ContinuousClock.now
    try await body()
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let cpu = cpuSeconds() - cpuBefore
    let rate = Double(requests) / seconds
    print(String(format: "| %@ | %.0f | %.1f |", label, rate, cpu / Double(requests) * 1e6))
    return rate
}

let arguments = CommandLine.arguments.dropFirst()
let server = try await TestServer.start()
let base = server.baseURL
let small = "bytes/64?length=1"

if arguments.first == "stream" {
    let name = arguments.dropFirst().first ?? ""
    guard let client = Client.allCases.first(where: { "\($0)" == name }) else {
        print("clients: \(Client.allCases.map { "\($0)" }.joined(separator: ", "))")
        exit(2)
    }
    let size = 1 << 30
    let runner = try Runner.make(client, base: base)
    let start = ContinuousClock.now
    let received = try await runner.stream("bytes/\(size)")
    let elapsed = ContinuousClock.now - start
    guard received == size else { throw BenchmarkError.shortBody }
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    print(String(format: "| %@ | %.0f MiB/s | %d MiB |", client.rawValue, Double(size) / seconds / 1_048_576, (ProcessMemory.peak >> 20)))
    try await runner.shutdown()
} else {
    let sequential = Int(arguments.first ?? "") ?? 20_000
    let concurrent = sequential
    print("Sequential: \(sequential) GETs of 64 bytes, one at a time\n")
    print("| client | requests/s | client CPU µs/request |\n|---|---|---|")
    var rates: [Client: Double] = [:]
    for client in Client.allCases {
        let runner = try Runner.make(client, base: base)
        for _ in 0..<200 { _ = try await runner.get(small) }  // warm-up: connections, caches
        rates[client] = try await measure(client.rawValue, requests: sequential) {
            for _ in 0..<sequential { _ = try await runner.get(small) }
        }
        try await runner.shutdown()
    }
    print(String(format: "\nFaraday/raw: AsyncHTTPClient %.2f, URLSession %.2f\n",
                 (rates[.faradayAsyncHTTPClient] ?? 0) / (rates[.rawAsyncHTTPClient] ?? 1),
                 (rates[.faradayURLSession] ?? 0) / (rates[.rawURLSession] ?? 1)))

    print("Concurrent: \(concurrent) GETs of 64 bytes, 64 in flight\n")
    print("| client | requests/s | client CPU µs/request |\n|---|---|---|")
    rates = [:]
    for client in Client.allCases {
        let runner = try Runner.make(client, base: base)
        for _ in 0..<200 { _ = try await runner.get(small) }
        rates[client] = try await measure(client.rawValue, requests: concurrent) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<64 {
                    group.addTask {
                        for _ in stride(from: worker, to: concurrent, by: 64) { _ = try await runner.get(small) }
                    }
                }
                try await group.waitForAll()
            }
        }
        try await runner.shutdown()
    }
    print(String(format: "\nFaraday/raw: AsyncHTTPClient %.2f, URLSession %.2f",
                 (rates[.faradayAsyncHTTPClient] ?? 0) / (rates[.rawAsyncHTTPClient] ?? 1),
                 (rates[.faradayURLSession] ?? 0) / (rates[.rawURLSession] ?? 1)))
}
try await server.shutdown()
