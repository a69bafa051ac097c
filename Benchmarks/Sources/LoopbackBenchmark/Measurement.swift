import Foundation

/// How requests are issued: one after another, with a fixed number in flight from as many
/// workers, or with a fixed number in flight as one child task per request (as callers write
/// concurrent code: a task group that adds a task for each request, issue 48's harness).
enum Mode: Sendable {
    case sequential
    case concurrent(Int)
    case taskPerRequest(Int)

    var title: String {
        switch self {
        case .sequential: "one at a time, one keep-alive connection"
        case .concurrent(let width): "\(width) in flight, \(width) workers"
        case .taskPerRequest(let width): "\(width) in flight, a child task per request"
        }
    }
}

/// One client's measurement: requests per second, the client's CPU time per request, and the
/// context switches of the client's threads per request (voluntary and involuntary, as
/// `getrusage` counts them for the whole process).
struct Sample: Sendable {
    var requestsPerSecond: Double
    var cpuMicrosecondsPerRequest: Double
    var switchesPerRequest: Double
}

/// The path of the small JSON document the server returns (see run-loopback.sh's nginx.conf):
/// issue 22's 207-byte document with no cookie, or `DOCUMENT=cookie.json`, the same document with
/// a `Set-Cookie` for the stack's jar to parse and store on every response.
let smallPath = ProcessInfo.processInfo.environment["DOCUMENT"] ?? "small.json"

func measureRequests(
    _ mode: Mode,
    clients: [Client],
    count: Int,
    rounds: Int,
    base: URL
) async throws -> [Client: [Sample]] {
    var samples: [Client: [Sample]] = [:]
    for round in 0..<rounds {
        // Alternate the order each round so that no client always runs first or last.
        let order = round.isMultiple(of: 2) ? clients : clients.reversed()
        for client in order {
            let runner = Runner.make(client, base: base)
            for _ in 0..<500 { _ = try await runner.get(smallPath) }  // connections, caches, cookies
            samples[client, default: []].append(
                try await measure(count: count, onLoop: callerOnLoop) {
                    switch mode {
                    case .sequential:
                        for _ in 0..<count { _ = try await runner.get(smallPath) }
                    case .concurrent(let width):
                        try await withThrowingTaskGroup(of: Void.self) { group in
                            for worker in 0..<width {
                                group.addTask {
                                    for _ in stride(from: worker, to: count, by: width) {
                                        _ = try await runner.get(smallPath)
                                    }
                                }
                            }
                            try await group.waitForAll()
                        }
                    case .taskPerRequest(let width):
                        try await withThrowingTaskGroup(of: Void.self) { group in
                            for index in 0..<count {
                                if index >= width { try await group.next() }
                                group.addTask { _ = try await runner.get(smallPath) }
                            }
                            try await group.waitForAll()
                        }
                    }
                }
            )
            try await runner.shutdown()
        }
    }
    return samples
}

/// `CALLER=loop`: the caller's code (the sequential loop, the workers, the tasks of requests) runs
/// on an event loop's executor, as code does that already runs on NIO (a server's handler): the
/// shape where NIOAdapter's call needs no hop at all.
let callerOnLoop = ProcessInfo.processInfo.environment["CALLER"] == "loop"

private func measure(count: Int, onLoop: Bool, _ body: () async throws -> Void) async throws -> Sample {
    let cpuBefore = ProcessUsage.cpuSeconds()
    let switchesBefore = ProcessUsage.contextSwitches()
    let start = ContinuousClock.now
    if onLoop {
        try await withTaskExecutorPreference(EventLoopTaskExecutor.next(), operation: body)
    } else {
        try await body()
    }
    let seconds = (ContinuousClock.now - start).seconds
    let cpu = ProcessUsage.cpuSeconds() - cpuBefore
    let switches = ProcessUsage.contextSwitches() - switchesBefore
    return Sample(
        requestsPerSecond: Double(count) / seconds,
        cpuMicrosecondsPerRequest: cpu / Double(count) * 1e6,
        switchesPerRequest: Double(switches) / Double(count)
    )
}

/// The Markdown table of one mode: the median of each client's rounds and its ratio to raw.
struct RequestTable {
    let mode: Mode
    let count: Int
    let rounds: Int
    let results: [Client: [Sample]]

    var markdown: String {
        var lines = [
            "\(count) GETs of /\(smallPath), \(mode.title) (median of \(rounds) rounds)", "",
            "| client | requests/s | client CPU µs/request | context switches/request | × raw requests/s |",
            "|---|---|---|---|---|",
        ]
        for client in Client.allCases {
            guard let sample = median(client) else { continue }
            let ratio = median(client.raw).map { sample.requestsPerSecond / $0.requestsPerSecond } ?? .nan
            lines.append(
                String(
                    format: "| %@ | %.0f | %.1f | %.2f | %.2f |",
                    client.label,
                    sample.requestsPerSecond,
                    sample.cpuMicrosecondsPerRequest,
                    sample.switchesPerRequest,
                    ratio
                )
            )
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func median(_ client: Client) -> Sample? {
        guard let samples = results[client], !samples.isEmpty else { return nil }
        let rates = samples.map(\.requestsPerSecond).sorted()
        let cpus = samples.map(\.cpuMicrosecondsPerRequest).sorted()
        let switches = samples.map(\.switchesPerRequest).sorted()
        return Sample(
            requestsPerSecond: rates[rates.count / 2],
            cpuMicrosecondsPerRequest: cpus[cpus.count / 2],
            switchesPerRequest: switches[switches.count / 2]
        )
    }
}

/// One streamed download: throughput, the client's CPU time per GiB (steadier than the
/// throughput on a shared machine), and the process's peak resident memory.
struct StreamResult {
    let client: Client
    let bytes: Int
    let seconds: Double
    let cpuSeconds: Double
    let peakResidentBytes: Int

    var markdownRow: String {
        String(
            format: "| %@ | %.0f MiB/s | %.0f ms | %d MiB |",
            client.label,
            Double(bytes) / seconds / 1_048_576,
            cpuSeconds * 1000 * Double(1 << 30) / Double(bytes),
            peakResidentBytes >> 20
        )
    }
}

/// `rounds` downloads one after another, streamed (or to a file, `toFile`); the median time and
/// CPU time, and the peak memory of them all.
func measureStream(
    _ client: Client,
    bytes: Int,
    rounds: Int,
    base: URL,
    toFile: Bool = false
) async throws
    -> StreamResult
{
    let runner = Runner.make(client, base: base)
    var times: [Double] = []
    var cpuTimes: [Double] = []
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("loopback-download-\(getpid())")
    defer { try? FileManager.default.removeItem(at: file) }
    for _ in 0..<max(1, rounds) {
        try? FileManager.default.removeItem(at: file)
        let start = ContinuousClock.now
        let cpuStart = ProcessUsage.cpuSeconds()
        let received = try await toFile ? runner.download("bytes/\(bytes)", file) : runner.stream("bytes/\(bytes)")
        times.append((ContinuousClock.now - start).seconds)
        cpuTimes.append(ProcessUsage.cpuSeconds() - cpuStart)
        guard received == bytes else { throw LoopbackError.shortBody(expected: bytes, received: received) }
    }
    try await runner.shutdown()
    return StreamResult(
        client: client,
        bytes: bytes,
        seconds: times.sorted()[times.count / 2],
        cpuSeconds: cpuTimes.sorted()[cpuTimes.count / 2],
        peakResidentBytes: ProcessUsage.peakResidentBytes()
    )
}

/// What the kernel says of this process.
enum ProcessUsage {
    /// User and system CPU time of every thread so far.
    static func cpuSeconds() -> Double {
        let usage = self.usage()
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// The context switches of every thread so far, voluntary (a thread that waits) and
    /// involuntary (one preempted).
    static func contextSwitches() -> Int {
        let usage = self.usage()
        return usage.ru_nvcsw + usage.ru_nivcsw
    }

    /// `getrusage` of this process: every thread so far.
    private static func usage() -> rusage {
        var usage = rusage()
        #if os(Linux)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        return usage
    }

    /// The peak resident set size (`VmHWM` on Linux, `ru_maxrss` elsewhere).
    static func peakResidentBytes() -> Int {
        #if os(Linux)
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
            return kilobytes * 1024
        }
        return 0
        #else
        return Int(usage().ru_maxrss)
        #endif
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
