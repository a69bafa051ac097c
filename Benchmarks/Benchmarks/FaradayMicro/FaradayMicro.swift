// The micro suite: Faraday's own costs with no I/O. Run from the Benchmarks folder:
//
//     swift package benchmark --target FaradayMicro
//
// See ../../README.md for the recorded results.
import Benchmark

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .instructions, .mallocCountTotal, .throughput],
        scalingFactor: .kilo,
        maxDuration: .seconds(3),
        maxIterations: 1_000
    )
    stackBenchmarks()
    jsonBenchmarks()
    paramsBenchmarks()
    cookieBenchmarks()
    framingBenchmarks()
    headerBenchmarks()
}
