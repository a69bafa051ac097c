import Foundation
// A Mutex used correctly from concurrent tasks, which ThreadSanitizer on Linux (Swift 6.3.1)
// reports as a "Swift access race" although every access is inside withLock and the count is
// right: its futex-based lock is invisible to ThreadSanitizer. This is why Faraday guards shared
// state with `Locked` (a pthread mutex) instead, and Scripts/sanitizers.sh runs clean.
//
//     swiftc -sanitize=thread -swift-version 6 -parse-as-library Scripts/tsan-mutex-repro.swift -o /tmp/repro && /tmp/repro
import Synchronization

struct Request: Sendable {
    var url: URL
    var name: String
}
final class Adapter: Sendable {
    struct State {
        var calls: [Request] = []
        var count = 0
    }
    private let state = Mutex(State())
    func call(_ request: Request) async throws -> Int {
        state.withLock { $0.calls.append(request) }
        try await Task.sleep(for: .microseconds(10))
        return state.withLock {
            $0.count += 1
            return $0.count
        }
    }
    var calls: Int { state.withLock { $0.calls.count } }
}
@main struct Main {
    static func main() async throws {
        let adapter = Adapter()
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<200 {
                group.addTask {
                    try await adapter.call(Request(url: URL(string: "https://x/\(index)")!, name: "\(index)"))
                }
            }
            for try await _ in group {}
        }
        print("calls", adapter.calls)
    }
}
