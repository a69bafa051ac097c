import Benchmark
import BenchmarkStacks
import Faraday
import Foundation
import HTTPTypes

/// A whole GET through a connection on the TestAdapter, for each benchmark stack and for each of
/// the six middleware alone: the cost of the stack, the connection and the response handle with
/// no I/O. The stub answers as the loopback suite's server does: issue 22's 207-byte JSON document.
func stackBenchmarks() {
    for stack in BenchmarkStack.allCases {
        Benchmark("Stack/GET, \(stack.rawValue) stack, TestAdapter") { benchmark, connection in
            for _ in benchmark.scaledIterations {
                blackHole(try await connection.get("items/1").value)
            }
        } setup: {
            try BenchmarkStack.connection(stack.handlers)
        }
    }
    for (name, handler) in BenchmarkStack.namedSix {
        Benchmark("Stack/GET, \(name) alone, TestAdapter") { benchmark, connection in
            for _ in benchmark.scaledIterations {
                blackHole(try await connection.get("items/1").value)
            }
        } setup: {
            try BenchmarkStack.connection([handler])
        }
    }
}
