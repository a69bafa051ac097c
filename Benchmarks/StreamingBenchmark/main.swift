// A streamed NDJSON response decoded frame by frame through Faraday, with peak memory.
//
//     swift run -c release StreamingBenchmark [bytes] [asyncHTTPClient|urlSession]
//
// Each 128-byte record becomes one completion that DecodeJSON decodes; the benchmark checks every
// record arrives in order and prints throughput and the process's peak resident memory.
import Faraday
import FaradayAsyncHTTPClient
import FaradayTestSupport
import Foundation

let arguments = CommandLine.arguments
let bytes = arguments.count > 1 ? Int(arguments[1]) ?? 1 << 30 : 1 << 30
let useURLSession = arguments.count > 2 && arguments[2] == "urlSession"

let server = try await TestServer.start()
let adapter: any Adapter = useURLSession ? URLSessionAdapter() : AsyncHTTPClientAdapter()
let connection = try Connection(url: server.baseURL.absoluteString) { builder in
    builder.use(DecodeJSON.Handler())
    builder.adapter = adapter
}
var streaming = Streaming.ndjson
streaming.maxFrameSize = 4096
let started = ContinuousClock.now
var frames = 0
var failure: FaradayError?
do {
    for try await env in connection.get("ndjson?bytes=\(bytes)", configure: { $0.options.streaming = streaming })
        .completions
    where !env.isFinal {
        guard env.json?["n"]?.int == frames else {
            throw FaradayError(.invalidResponse, "record \(frames) is out of order")
        }
        frames += 1
    }
} catch {
    failure = error as? FaradayError
}
let elapsed = ContinuousClock.now - started
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
let mebibytes = Double(frames * 128) / 1_048_576
if let failure {
    print(
        "| \(useURLSession ? "URLSessionAdapter" : "AsyncHTTPClientAdapter") | failed after \(frames) frames: \(failure.code) |"
    )
}
print(
    "| \(useURLSession ? "URLSessionAdapter" : "AsyncHTTPClientAdapter") | \(frames) frames | \(String(format: "%.0f", mebibytes)) MiB | \(String(format: "%.1f", seconds)) s | \(String(format: "%.0f", Double(frames) / seconds)) frames/s | \(ProcessMemory.peak >> 20) MiB peak RSS |"
)
try await (adapter as? AsyncHTTPClientAdapter)?.shutdown()
try await server.shutdown()
