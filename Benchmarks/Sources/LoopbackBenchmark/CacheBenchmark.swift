import Faraday
import FaradayAsyncHTTPClient
import Foundation

/// Issue 23's benchmark line: a fresh hit of `HTTPCache` from memory and from disk, per request,
/// against the same GET over the network (nginx on loopback answers `cached.json` with
/// `Cache-Control: max-age=3600`). Sequential GETs on AsyncHTTPClientAdapter; the median of
/// `rounds` rounds of `count` GETs each, wall clock and CPU per GET.
func measureCacheHits(base: URL, count: Int, rounds: Int) async throws -> String {
    let directory = FileManager.default.temporaryDirectory.appending(path: "faraday-cache-bench-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let adapter = AsyncHTTPClientAdapter()
    let rows: [(String, [any Handler])] = [
        ("network round trip (no cache)", []),
        ("HTTPCache hit, MemoryCacheStore", [HTTPCache.Handler()]),
        ("HTTPCache hit, DiskCacheStore", [HTTPCache.Handler(store: try DiskCacheStore(directory: directory))]),
    ]
    var connections: [Connection] = []
    for (_, handlers) in rows {
        let connection = try Connection(url: base.absoluteString) { builder in
            for handler in handlers { builder.use(handler) }
            builder.adapter = adapter
        }
        for _ in 0..<200 { _ = try await connection.get("cached.json").value }  // warm-up; stores the entry
        connections.append(connection)
    }
    var samples = [[(wall: Double, cpu: Double)]](repeating: [], count: rows.count)
    for _ in 0..<rounds {
        for (index, connection) in connections.enumerated() {
            let cpu = ProcessUsage.cpuSeconds()
            let start = ContinuousClock.now
            for _ in 0..<count {
                let env = try await connection.get("cached.json").value
                if index > 0 && env.cacheStatus != .hit { throw LoopbackError.usage }
            }
            let wall = ContinuousClock.now - start
            let seconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
            samples[index].append((seconds / Double(count), (ProcessUsage.cpuSeconds() - cpu) / Double(count)))
        }
    }
    try await adapter.shutdown()
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    let network = median(samples[0].map(\.wall))
    var table = """
        \(count) sequential GETs of cached.json through AsyncHTTPClientAdapter (median of \(rounds) rounds)

        | path | µs/GET (wall) | client CPU µs/GET | × the network round trip |
        |---|---|---|---|

        """
    for (index, (label, _)) in rows.enumerated() {
        let wall = median(samples[index].map(\.wall))
        let cpu = median(samples[index].map(\.cpu))
        table += String(format: "| %@ | %.1f | %.1f | %.2f |\n", label, wall * 1e6, cpu * 1e6, wall / network)
    }
    return table
}
