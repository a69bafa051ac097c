import Benchmark
import Faraday
import Foundation

/// Header handling on every request: a connection's defaults merged with a request's headers, the
/// `Accept` list, and the response's content type read back.
func headerBenchmarks() {
    var defaults = HTTPFields()
    for index in 0..<8 {
        if let name = HTTPField.Name("X-Default-\(index)") { defaults[name] = "value \(index)" }
    }
    defaults[.userAgent] = Connection.defaultUserAgent
    var overrides = HTTPFields()
    overrides[.accept] = "text/plain"
    if let name = HTTPField.Name("X-Default-3") { overrides[name] = "overridden" }
    var response = HTTPFields()
    response[.contentType] = "application/vnd.api+json; charset=utf-8"

    Benchmark("Headers/merge 9 defaults with 2 request headers") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(defaults.merging(overrides)) }
    }
    Benchmark("Headers/add application/json to Accept") { benchmark in
        for _ in benchmark.scaledIterations {
            var headers = overrides
            headers.accepts(contentTypes: ["application/json"])
            blackHole(headers)
        }
    }
    Benchmark("Headers/content type and parameters of a response") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(response.contentType)
            blackHole(response.contentTypeParameters)
        }
    }
}
