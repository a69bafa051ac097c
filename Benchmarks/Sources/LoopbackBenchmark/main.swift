// The loopback suite: the same requests through each raw client and through Faraday on each
// adapter, against one server on 127.0.0.1 (nginx, started by ../../run-loopback.sh, which also
// pins the server and this process to cores of their own).
//
//     LoopbackBenchmark requests BASE_URL [COUNT] [ROUNDS] [CLIENT]   # sequential and 64 in flight
//     LoopbackBenchmark stream BASE_URL CLIENT [BYTES]        # one streamed download, with peak RSS
//
// Every row of one run is measured in the same process, against the same server, in rounds that
// alternate the clients; each row is the median of its rounds and each Faraday row is given as a
// ratio to its raw client's median of the same run.
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2, let base = URL(string: arguments[1]) else {
    print(LoopbackError.usage)
    exit(2)
}

switch arguments[0] {
case "requests":
    let count = arguments.count > 2 ? Int(arguments[2]) ?? 20_000 : 20_000
    let rounds = arguments.count > 3 ? Int(arguments[3]) ?? 3 : 3
    // One client alone, for profiling it (`perf record`, `valgrind --tool=callgrind`).
    let clients = arguments.count > 4 ? Client(rawValue: arguments[4]).map { [$0] } ?? [] : Client.allCases
    for mode in [Mode.sequential, .concurrent(64)] {
        let results = try await measureRequests(mode, clients: clients, count: count, rounds: rounds, base: base)
        print(RequestTable(mode: mode, count: count, rounds: rounds, results: results).markdown)
    }
case "stream":
    guard arguments.count > 2, let client = Client(rawValue: arguments[2]) else {
        print(LoopbackError.usage)
        exit(2)
    }
    let bytes = arguments.count > 3 ? Int(arguments[3]) ?? 1 << 30 : 1 << 30
    let result = try await measureStream(client, bytes: bytes, base: base)
    print(result.markdownRow)
default:
    print(LoopbackError.usage)
    exit(2)
}
