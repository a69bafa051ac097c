// The loopback suite: the same requests through each raw client and through Faraday on each
// adapter, against one server on 127.0.0.1 (nginx, started by ../../run-loopback.sh, which also
// pins the server and this process to cores of their own).
//
//     LoopbackBenchmark requests BASE_URL [COUNT] [ROUNDS] [CLIENT,…] # sequential, 64 in flight from 64
//                                                                     # workers, and from a task a request
//                                                                     # (MODE=sequential|concurrent|tasks: one;
//                                                                     # MIDDLEWARE=Cookies: that one of the six alone;
//                                                                     # CALLER=loop: the caller's code on an event loop;
//                                                                     # CALLER=global: NIO's loops as Swift's global
//                                                                     # executor, for every task of the process)
//     LoopbackBenchmark stream BASE_URL CLIENT [BYTES] [ROUNDS]       # streamed downloads, peak RSS
//     LoopbackBenchmark cache BASE_URL [COUNT] [ROUNDS]               # HTTPCache hits against the network
//     LoopbackBenchmark label CLIENT                                  # a client's name in the tables
//     LoopbackBenchmark document                                      # the small document the server serves
//
// Every row of one run is measured in the same process, against the same server, in rounds that
// alternate the clients; each row is the median of its rounds and each Faraday row is given as a
// ratio to its raw client's median of the same run. CLIENT alone runs one client (for profiling).
import BenchmarkStacks
import Foundation
import NIOCore
import NIOPosix

// CALLER=global: NIO's singleton event loops become Swift's global executor before any task runs
// (NIOSingletons), so that every task of the process (the workers, the tasks of requests) runs on
// a loop: the one-line, whole-program form of CALLER=loop.
if ProcessInfo.processInfo.environment["CALLER"] == "global",
    !NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
{
    print("CALLER=global: NIO's event loops could not be installed as the global executor")
    exit(2)
}

let arguments = Array(CommandLine.arguments.dropFirst())

func usage() -> Never {
    print(LoopbackError.usage)
    exit(2)
}

func integer(at index: Int, default value: Int) -> Int {
    arguments.count > index ? Int(arguments[index]) ?? value : value
}

switch arguments.first {
case "document":
    print(BenchmarkStack.document, terminator: "")
case "label":
    guard arguments.count > 1, let client = Client(rawValue: arguments[1]) else { usage() }
    print(client.label)
case "requests":
    guard arguments.count > 1, let base = URL(string: arguments[1]) else { usage() }
    let count = integer(at: 2, default: 20_000)
    let rounds = integer(at: 3, default: 3)
    var clients = Client.suite
    if arguments.count > 4 {
        // One client, or several separated by commas (measured in one run, interleaved).
        let named = arguments[4].split(separator: ",").map { Client(rawValue: String($0)) }
        guard !named.isEmpty, named.allSatisfy({ $0 != nil }) else { usage() }
        clients = named.compactMap { $0 }
    }
    // MODE=sequential, MODE=concurrent or MODE=tasks runs one mode alone (for profiling).
    let modes: [Mode] =
        switch ProcessInfo.processInfo.environment["MODE"] {
        case "sequential": [.sequential]
        case "concurrent": [.concurrent(64)]
        case "tasks": [.taskPerRequest(64)]
        default: [.sequential, .concurrent(64), .taskPerRequest(64)]
        }
    for mode in modes {
        let results = try await measureRequests(mode, clients: clients, count: count, rounds: rounds, base: base)
        print(RequestTable(mode: mode, count: count, rounds: rounds, results: results).markdown)
    }
case "cache":
    guard arguments.count > 1, let base = URL(string: arguments[1]) else { usage() }
    print(
        try await measureCacheHits(
            base: base,
            count: integer(at: 2, default: 20_000),
            rounds: integer(at: 3, default: 3)
        )
    )
case "stream", "download":
    guard arguments.count > 2, let base = URL(string: arguments[1]), let client = Client(rawValue: arguments[2]) else {
        usage()
    }
    let result = try await measureStream(
        client,
        bytes: integer(at: 3, default: 1 << 30),
        rounds: integer(at: 4, default: 3),
        base: base,
        toFile: arguments[0] == "download"
    )
    print(result.markdownRow)
default:
    usage()
}
