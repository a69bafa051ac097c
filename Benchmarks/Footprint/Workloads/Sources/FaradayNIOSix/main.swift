import Faraday
import FaradayNIO
import Logging
import Workload

// Issue 22's six on NIOAdapter (64 connections), as the loopback suite's faradayNIOSix.
var silent = Logger(label: "faraday.footprint")
silent.logLevel = .warning  // HTTPLogger logs at .info: every line is off
var configuration = NIOAdapter.Configuration()
configuration.maximumConnectionsPerHost = 64
let adapter = NIOAdapter(configuration: configuration)
let base = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : ""
let connection = try Connection(url: base) { builder in
    builder.use(EncodeJSON.Handler())
    builder.use(DecodeJSON.Handler())
    builder.use(HTTPLogger.Handler(logger: silent))
    builder.use(Authorization.Handler(.bearer("benchmark-token")))
    builder.use(Cookies.Handler(jar: CookieJar()))
    builder.use(RaiseError.Handler())
    builder.adapter = adapter
}
try await Workload.main(
    get: { path in try await connection.get(path).value.body.count },
    stream: { path in
        var total = 0
        for try await env in connection.get(path, streaming: .chunks).completions { total += env.body.count }
        return total
    }
)
try await adapter.shutdown()
