// A loop of GETs through one benchmark stack on the TestAdapter, with nothing else in the
// process, for counting allocations (heaptrack) or instructions (callgrind) per request:
//
//     AllocProbe [empty|one|sixPassThrough|six|twelve] [count]
import BenchmarkStacks
import Faraday

let stack = BenchmarkStack(rawValue: CommandLine.arguments.dropFirst().first ?? "six") ?? .six
let count = Int(CommandLine.arguments.dropFirst(2).first ?? "") ?? 10000
let connection = try BenchmarkStack.connection(stack.handlers)
for _ in 0..<count { _ = try await connection.get("items/1").value }
print("\(count) GETs through the \(stack.rawValue) stack")
