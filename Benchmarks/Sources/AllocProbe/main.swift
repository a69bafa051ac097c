// A loop of GETs through one benchmark stack on the TestAdapter, with nothing else in the
// process, for counting allocations (heaptrack), instructions (callgrind) or samples (perf
// record) per request:
//
//     AllocProbe [empty|one|sixPassThrough|six|twelve|<one of the six, alone>|cacheMemory|cacheDisk] [count]
//
// `AllocProbe Cookies 100000` runs the Cookies middleware alone (any of the six by the first word
// of its name: EncodeJSON, DecodeJSON, HTTPLogger, Authorization, Cookies, RaiseError).
// The answer is issue 22's workload, a 207-byte JSON document and no cookie; with `SETCOOKIE=1` it
// also sets a cookie, for the jar to parse and store on every response (the workload of the runs
// before the fifth session of 2026-11-24).
// With `ADAPTER=fixed` in the environment, the stack ends in a FixedResponseAdapter instead of the
// TestAdapter (which records every request): the stack's cost alone.
//
// With `COLD=KiB` (2048, say), each GET is preceded by writes across a buffer of that size, which
// push the stack's code and data out of the core's first two cache levels, as the kernel and the
// event loops do between two requests over the network. Compare stacks by their difference (both
// pay the writes). Measured (issue 22's fifth session, in Benchmarks/README.md's history): it adds about a quarter to the six's cost,
// not the three to four times the network shows, which comes from elsewhere.
//
// The loop runs off the main actor, as a server's request handler does, so that each GET does
// not pay two hops between the main thread and the cooperative pool.
import BenchmarkStacks
import Faraday
import Foundation
import HTTPTypes

let name = CommandLine.arguments.dropFirst().first ?? "six"
let count = Int(CommandLine.arguments.dropFirst(2).first ?? "") ?? 10000

// `cacheMemory` and `cacheDisk`: fresh hits of HTTPCache from each store (issue 47's disk index),
// the stack ending in a FixedResponseAdapter whose answer is fresh for an hour.
if name == "cacheMemory" || name == "cacheDisk" {
    let directory = FileManager.default.temporaryDirectory.appending(path: "faraday-probe-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let store: any CacheStore = name == "cacheDisk" ? try DiskCacheStore(directory: directory) : MemoryCacheStore()
    var headers = HTTPFields()
    headers[.contentType] = "application/json"
    headers[.cacheControl] = "max-age=3600"
    let adapter = FixedResponseAdapter(
        ResponseData(status: .ok, headers: headers, body: Data(BenchmarkStack.document.utf8))
    )
    let connection = try Connection(url: "https://api.example.com") { builder in
        builder.use(HTTPCache.Handler(store: store))
        builder.adapter = adapter
    }
    _ = try await connection.get("items/1").value  // stores the entry
    try await Task.detached {
        for _ in 0..<count {
            guard try await connection.get("items/1").value.cacheStatus == .hit else { exit(3) }
        }
    }.value
    print("\(count) hits from \(name)")
    exit(0)
}
/// Each of the six by the first word of its name, and each stack by its own.
let choices =
    BenchmarkStack.namedSix.map { (String($0.name.prefix { $0 != " " }), [$0.handler]) }
    + BenchmarkStack.allCases.map { ($0.rawValue, $0.handlers) }
guard let handlers = choices.first(where: { $0.0 == name })?.1 else {
    print("AllocProbe: no stack or middleware named \(name); one of \(choices.map(\.0).joined(separator: ", "))")
    exit(2)
}
let fixed = ProcessInfo.processInfo.environment["ADAPTER"] == "fixed"
let setsCookie = ProcessInfo.processInfo.environment["SETCOOKIE"] == "1"
let connection = try BenchmarkStack.connection(handlers, fixed: fixed, setsCookie: setsCookie)
let coldBytes = (ProcessInfo.processInfo.environment["COLD"].flatMap { Int($0) } ?? 0) * 1024
try await Task.detached {
    var flush = [UInt8](repeating: 0, count: coldBytes)
    for round in 0..<count {
        if coldBytes > 0 {
            // One write per 64-byte line, a different value each round so that none is skipped.
            flush.withUnsafeMutableBytes { bytes in
                for line in stride(from: 0, to: bytes.count, by: 64) { bytes[line] = UInt8(truncatingIfNeeded: round) }
            }
        }
        _ = try await connection.get("items/1").value
    }
}.value
print("\(count) GETs through \(name)")
