// Requests with a different read and open timeout each through one AsyncHTTPClientAdapter,
// printing the process's resident memory, threads and open file descriptors every 1,000
// requests: with the adapter's client bound they stay flat.
//
//     swift run ClientPoolProbe [requests] [concurrency] [varied|fixed]
//
// `fixed` sends every request with the adapter's default timeouts: the baseline.
import Faraday
import FaradayAsyncHTTPClient
import FaradayTestSupport
import Foundation

let arguments = CommandLine.arguments
let requests = arguments.count > 1 ? Int(arguments[1]) ?? 10_000 : 10_000
let concurrency = arguments.count > 2 ? Int(arguments[2]) ?? 8 : 8
let varies = arguments.count <= 3 || arguments[3] != "fixed"

/// A field of /proc/self/status (`VmRSS`, `Threads`), as its number.
func status(_ field: String) -> Int {
    let text = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = text.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
    return Int(line.split(whereSeparator: \.isWhitespace).dropFirst().first ?? "") ?? -1
}

func openFiles() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1 }

// PROBE_URL names a server in another process, so that only the client's memory is measured.
let outside = ProcessInfo.processInfo.environment["PROBE_URL"]
let server = outside == nil ? try await TestServer.start() : nil
let adapter = AsyncHTTPClientAdapter()
let connection = try Connection(url: outside ?? server?.baseURL.absoluteString ?? "") { $0.adapter = adapter }
print("requests  rss-KiB  threads  fds  clients")
func report(_ done: Int) {
    print(
        String(
            format: "%8d  %7d  %7d  %3d  %7d",
            done,
            status("VmRSS"),
            status("Threads"),
            openFiles(),
            adapter.clientCount
        )
    )
}
report(0)
for batch in stride(from: 0, to: requests, by: 1000) {
    try await withThrowingTaskGroup(of: Void.self) { group in
        for worker in 0..<concurrency {
            group.addTask {
                for index in stride(from: batch + worker, to: min(batch + 1000, requests), by: concurrency) {
                    let env = try await connection.get(outside == nil ? "echo" : "") { request in
                        guard varies else { return }
                        request.options.readTimeout = .milliseconds(5_000 + index)
                        request.options.openTimeout = .milliseconds(2_000 + index % 7)
                    }.value
                    precondition(env.status?.code == 200)
                }
            }
        }
        try await group.waitForAll()
    }
    report(min(batch + 1000, requests))
}
try await adapter.shutdown()
try await server?.shutdown()
