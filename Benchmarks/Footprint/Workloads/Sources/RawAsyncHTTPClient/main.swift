import AsyncHTTPClient
import NIOCore
import Workload

// The loopback suite's raw AsyncHTTPClient: its async API, 64 connections, no redirects, no
// decompression.
var configuration = HTTPClient.Configuration()
configuration.redirectConfiguration = .disallow
configuration.decompression = .disabled
configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
let base = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : ""
try await Workload.main(
    get: { path in
        let response = try await http.execute(HTTPClientRequest(url: base + path), timeout: .seconds(30))
        return try await response.body.collect(upTo: 1 << 26).readableBytes
    },
    stream: { path in
        let response = try await http.execute(HTTPClientRequest(url: base + path), timeout: .seconds(600))
        var total = 0
        for try await part in response.body { total += part.readableBytes }
        return total
    }
)
try await http.shutdown().get()
