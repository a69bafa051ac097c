// The setups of the FaradayAsyncHTTPClient and FaradayObservability overviews.
// snippet.hide
import Faraday
import FaradayAsyncHTTPClient
import FaradayObservability

// snippet.show

// snippet.asyncHTTPClient
let adapter = AsyncHTTPClientAdapter()
let connection = try Connection(url: "https://api.example.com") { $0.adapter = adapter }
let env = try await connection.get("status").value
try await adapter.shutdown()

// snippet.observability
let observed = try Connection(url: "https://api.example.com") { builder in
    builder.use(Instrumentation.Handler(monitors: [MetricsMonitor()]))
    builder.use(TraceRequests.Handler())
    builder.use(Retry.Handler())
    builder.adapter = URLSessionAdapter()
}
// snippet.hide
print(env.status?.code ?? 0, observed.handlers.count)
// snippet.end
