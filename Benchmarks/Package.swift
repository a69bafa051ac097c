// swift-tools-version:6.1

// Faraday's benchmarks, in a package of their own so that users of Faraday never resolve the
// benchmark tooling. See README.md for the commands and the recorded results.
//
//     swift package benchmark                     # the micro suite (Benchmarks/FaradayMicro)
//     ./run-loopback.sh                           # the loopback suite against nginx

import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "faraday-benchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "faraday-swift", path: "..", traits: [.defaults, "AsyncHTTPClient", "NIO"]),
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    ],
    targets: [
        // The stacks every benchmark measures, so that the micro and loopback suites agree.
        .target(
            name: "BenchmarkStacks",
            dependencies: [
                .product(name: "Faraday", package: "faraday-swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "AllocProbe",
            dependencies: ["BenchmarkStacks", .product(name: "Faraday", package: "faraday-swift")],
            swiftSettings: swiftSettings
        ),
        // No I/O: the stack on the TestAdapter, the codecs, params, cookies, framing, headers.
        .executableTarget(
            name: "FaradayMicro",
            dependencies: [
                "BenchmarkStacks",
                .product(name: "Faraday", package: "faraday-swift"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/FaradayMicro",
            swiftSettings: swiftSettings,
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Raw AsyncHTTPClient and URLSession against Faraday on each adapter, over loopback.
        .executableTarget(
            name: "LoopbackBenchmark",
            dependencies: [
                "BenchmarkStacks",
                .product(name: "Faraday", package: "faraday-swift"),
                .product(name: "FaradayAsyncHTTPClient", package: "faraday-swift"),
                .product(name: "FaradayNIO", package: "faraday-swift"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
