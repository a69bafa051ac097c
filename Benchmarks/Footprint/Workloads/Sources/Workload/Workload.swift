#if canImport(Glibc)
import Glibc
#endif

/// One of the loopback suite's workloads against its nginx, run through a client's two calls,
/// then the process's peak resident memory printed.
public enum Workload: String, Sendable {
    /// 20,000 GETs of `small.json`, one at a time.
    case sequential
    /// 20,000 GETs from 64 workers.
    case concurrent
    /// 20,000 GETs, a task each, 64 in flight.
    case tasks
    /// One streamed GET of `bytes/1073741824`, counted and dropped.
    case stream

    /// Runs the workload named by the command line (`PROGRAM BASE_URL WORKLOAD`) with `get`
    /// (a path to its body's length) and `stream` (a path to the bytes received), and prints
    /// `WORKLOAD peak RSS KiB`.
    public static func main(
        get: @escaping @Sendable (String) async throws -> Int,
        stream: @escaping @Sendable (String) async throws -> Int
    ) async throws {
        let arguments = CommandLine.arguments
        guard arguments.count == 3, let workload = Workload(rawValue: arguments[2]) else {
            print("usage: \(arguments[0]) BASE_URL sequential|concurrent|tasks|stream")
            exit(2)
        }
        let requests = 20_000
        for _ in 0..<500 { _ = try await get("small.json") }
        switch workload {
        case .sequential:
            for _ in 0..<requests { _ = try await get("small.json") }
        case .concurrent:
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<64 {
                    group.addTask { for _ in 0..<(requests / 64) { _ = try await get("small.json") } }
                }
                try await group.waitForAll()
            }
        case .tasks:
            try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<requests {
                    if index >= 64 { _ = try await group.next() }
                    group.addTask { try await get("small.json") }
                }
                try await group.waitForAll()
            }
        case .stream:
            let received = try await stream("bytes/1073741824")
            guard received == 1 << 30 else {
                print("short stream: \(received) bytes")
                exit(1)
            }
        }
        print("\(workload.rawValue) \(peakResidentKiB())")
    }

    /// VmHWM of `/proc/self/status`.
    static func peakResidentKiB() -> Int {
        guard let file = fopen("/proc/self/status", "r") else { return -1 }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, 256, file) != nil {
            let text = String(cString: line)
            if text.hasPrefix("VmHWM:") { return Int(text.split(separator: " ")[1]) ?? -1 }
        }
        return -1
    }
}
