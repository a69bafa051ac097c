import Benchmark
import Faraday

/// Query parameters to and from a query string, flat and nested (Rack's `a[b][]=c`).
func paramsBenchmarks() {
    let flat: Params = [
        "q": "swift http client", "page": "2", "per_page": "50", "sort": "updated", "order": "desc",
        "filter": "open", "lang": "en", "since": "2026-01-01T00:00:00Z",
    ]
    let nested: Params = [
        "user": [
            "name": "Ada Lovelace", "roles": ["admin", "editor"], "address": ["city": "London", "zip": "N1 9GU"],
        ],
        "tags": ["a", "b", "c"], "page": "2",
    ]
    let flatEncoder = FlatParamsEncoder()
    let nestedEncoder = NestedParamsEncoder()
    let flatQuery = flatEncoder.encode(flat)
    let nestedQuery = nestedEncoder.encode(nested)

    Benchmark("Params/encode flat, 8 params") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(flatEncoder.encode(flat)) }
    }
    Benchmark("Params/decode flat, 8 params") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try flatEncoder.decode(flatQuery)) }
    }
    Benchmark("Params/encode nested, 3 levels") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(nestedEncoder.encode(nested)) }
    }
    Benchmark("Params/decode nested, 3 levels") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try nestedEncoder.decode(nestedQuery)) }
    }
}
