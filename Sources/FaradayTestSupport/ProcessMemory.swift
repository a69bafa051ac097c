import Foundation

/// This process's memory, read from `/proc/self/status` (Linux; 0 elsewhere), for tests and
/// benchmarks that show memory stays bounded.
public enum ProcessMemory {
    /// The resident memory now, in bytes (`VmRSS`).
    public static var resident: Int { read("VmRSS:") }

    /// The most resident memory so far, in bytes (`VmHWM`).
    public static var peak: Int { read("VmHWM:") }

    private static func read(_ field: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kilobytes * 1024
    }
}
