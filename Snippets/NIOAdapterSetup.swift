// The setup of the FaradayNIO overview.
// snippet.hide
import Faraday
import FaradayNIO

if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
    // snippet.show
    // snippet.setup
    var configuration = NIOAdapter.Configuration()
    configuration.maximumConnectionsPerHost = 16  // to one origin, across the event loops
    let adapter = NIOAdapter(configuration: configuration)
    let connection = try Connection(url: "https://api.example.com") { $0.adapter = adapter }
    // The stack runs on the event loop of the call's connection; this line runs where it did before.
    let env = try await connection.get("status").value
    print(env.status?.code ?? 0)
    // snippet.manyCalls
    // Many calls at once: tasks that prefer the adapter's loop make their calls with no hop.
    try await withThrowingTaskGroup(of: Void.self) { group in
        for id in 1...64 {
            group.addTask(executorPreference: adapter.loopExecutor()) {
                _ = try await connection.get("items/\(id)").value
            }
        }
        try await group.waitForAll()
    }
    // snippet.hide
    try await adapter.shutdown()
}
