import Benchmark
import Faraday
import Foundation

/// EncodeJSON and DecodeJSON as middleware, against plain `JSONEncoder` and `JSONDecoder` doing
/// the same work, on a small document and on one of 1 MiB.
func jsonBenchmarks() {
    for (size, records) in [("small", Record.samples(1)), ("1 MiB", Record.samples(Record.countForOneMiB))] {
        let scaling: BenchmarkScalingFactor = records.count == 1 ? .kilo : .one
        let body = (try? JSONEncoder().encode(records)) ?? Data()

        Benchmark("JSON/encode \(size), plain JSONEncoder", configuration: .init(scalingFactor: scaling)) { benchmark in
            let encoder = JSONEncoder()
            for _ in benchmark.scaledIterations { blackHole(try encoder.encode(records)) }
        }
        Benchmark("JSON/encode \(size), EncodeJSON", configuration: .init(scalingFactor: scaling)) {
            (benchmark: Benchmark, connection: Connection) in
            for _ in benchmark.scaledIterations {
                blackHole(try await connection.post("items", body: .json(records)).value)
            }
        } setup: {
            try Connection.echo(EncodeJSON.Handler(), response: nil)
        }

        Benchmark("JSON/decode \(size), plain JSONDecoder", configuration: .init(scalingFactor: scaling)) { benchmark in
            let decoder = JSONDecoder()
            for _ in benchmark.scaledIterations { blackHole(try decoder.decode(JSON.self, from: body)) }
        }
        Benchmark("JSON/decode \(size), DecodeJSON", configuration: .init(scalingFactor: scaling)) {
            (benchmark: Benchmark, connection: Connection) in
            for _ in benchmark.scaledIterations {
                blackHole(try await connection.get("items").value.json)
            }
        } setup: {
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            return try Connection.echo(
                DecodeJSON.Handler(),
                response: ResponseData(status: .ok, headers: headers, body: body)
            )
        }
    }
}

/// A record of an API's list: a few fields of each JSON kind, about 200 bytes encoded.
struct Record: Codable, Sendable {
    var id: Int
    var name: String
    var email: String
    var active: Bool
    var score: Double
    var tags: [String]
    var address: Address

    struct Address: Codable, Sendable {
        var street: String
        var city: String
        var zip: String
    }

    /// About 1 MiB of records once encoded.
    static let countForOneMiB = 1_048_576 / 200

    static func samples(_ count: Int) -> [Record] {
        (0..<count).map { index in
            Record(
                id: index,
                name: "User \(index)",
                email: "user\(index)@example.com",
                active: index % 2 == 0,
                score: Double(index) * 1.5,
                tags: ["alpha", "beta", "gamma"],
                address: Address(street: "\(index) Main Street", city: "Springfield", zip: "12345")
            )
        }
    }
}

extension Connection {
    /// A connection with one middleware on an ``Echo`` adapter: a middleware runs the way a
    /// stack runs it (hooks pulled by the response handle), with no I/O.
    static func echo(_ handler: any Handler, response: ResponseData?) throws -> Connection {
        try Connection(url: "https://api.example.com") { builder in
            builder.use(handler)
            builder.adapter = Echo(response: response)
        }
    }
}

/// The innermost app for middleware benchmarks: answers at once with a fixed response.
struct Echo: Adapter {
    static let url = URL(string: "https://api.example.com/items") ?? URL(filePath: "/")
    let response: ResponseData?

    func call(_ env: Env) async throws(FaradayError) -> Completions {
        var env = env
        env.response = response ?? ResponseData(status: .ok)
        return .buffered(env)
    }
}
