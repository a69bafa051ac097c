// A loop of GETs through one benchmark stack on the TestAdapter, with nothing else in the
// process, for counting allocations (heaptrack), instructions (callgrind) or samples (perf
// record) per request:
//
//     AllocProbe [empty|one|sixPassThrough|six|twelve|<one of the six, alone>] [count]
//
// `AllocProbe Cookies 100000` runs the Cookies middleware alone (any of the six by the first word
// of its name: EncodeJSON, DecodeJSON, HTTPLogger, Authorization, Cookies, Instrumentation).
// With `ADAPTER=fixed` in the environment, the stack ends in a FixedResponseAdapter instead of the
// TestAdapter (which records every request): the stack's cost alone.
//
// The loop runs off the main actor, as a server's request handler does, so that each GET does
// not pay two hops between the main thread and the cooperative pool.
import BenchmarkStacks
import Faraday
import Foundation

let name = CommandLine.arguments.dropFirst().first ?? "six"
let alone = BenchmarkStack.namedSix.first { $0.name.split(separator: " ").first.map(String.init) == name }
let handlers = alone.map { [$0.handler] } ?? (BenchmarkStack(rawValue: name) ?? .six).handlers
let count = Int(CommandLine.arguments.dropFirst(2).first ?? "") ?? 10000
let fixed = ProcessInfo.processInfo.environment["ADAPTER"] == "fixed"
let connection = try BenchmarkStack.connection(handlers, fixed: fixed)
try await Task.detached {
    for _ in 0..<count { _ = try await connection.get("items/1").value }
}.value
print("\(count) GETs through \(alone?.name ?? (BenchmarkStack(rawValue: name) ?? .six).rawValue)")
