// swift-tools-version:6.1

import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// An example program in `Examples/<folder>`.
func example(_ name: String, folder: String? = nil, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(
        name: name,
        dependencies: dependencies,
        path: "Examples/\(folder ?? name)",
        swiftSettings: swiftSettings
    )
}

/// A product that a heavy product of this package uses, resolved only by packages that enable the
/// product's trait: a package that uses `Faraday` alone resolves none of them.
func behind(_ trait: String, _ product: String, from package: String) -> Target.Dependency {
    .product(name: product, package: package, condition: .when(traits: [trait]))
}

let package = Package(
    name: "faraday-swift",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "Faraday", targets: ["Faraday"]),
        .library(name: "FaradayHAL", targets: ["FaradayHAL"]),
        .library(name: "FaradayAsyncHTTPClient", targets: ["FaradayAsyncHTTPClient"]),
        .library(name: "FaradayNIO", targets: ["FaradayNIO"]),
        .library(name: "FaradayXML", targets: ["FaradayXML"]),
        .library(name: "FaradayObservability", targets: ["FaradayObservability"]),
        .library(name: "FaradayOpenAPI", targets: ["FaradayOpenAPI"]),
    ],
    // One trait per heavy product, none on by default, and URLSession, on by default: see the
    // README's Install section.
    traits: [
        .trait(
            name: "URLSession",
            description: "URLSessionAdapter, the default adapter (FoundationNetworking and libcurl on Linux)."
        ),
        .trait(name: "NIO", description: "FaradayNIO: HTTP/1.1 on SwiftNIO, with TLS (swift-nio-ssl)."),
        .trait(
            name: "AsyncHTTPClient",
            description: "FaradayAsyncHTTPClient: the adapter on AsyncHTTPClient.",
            enabledTraits: ["NIO"]
        ),
        .trait(
            name: "Observability",
            description: "FaradayObservability: swift-distributed-tracing spans and swift-metrics."
        ),
        .trait(name: "XML", description: "FaradayXML: XML bodies on XMLCoder."),
        .trait(name: "OpenAPI", description: "FaradayOpenAPI: a ClientTransport for swift-openapi-generator clients."),
        .default(enabledTraits: ["URLSession"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-atomics.git", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
        .package(url: "https://github.com/CoreOffice/XMLCoder.git", from: "0.18.2"),
    ],
    targets: [
        // zlib, from the system (Debian's zlib1g-dev; part of Apple's SDKs), for Decompression.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        // The core: Foundation, HTTPTypes, swift-log and the system's zlib only.
        .target(
            name: "Faraday",
            dependencies: [
                "CZlib",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The Public Suffix List's licence, beside the list compiled from it.
            exclude: ["Middleware/Cookies/PublicSuffixData/LICENSE-MPL-2.0.txt"],
            swiftSettings: swiftSettings
        ),
        // HAL (application/hal+json): the model, its middleware and navigation by relation.
        .target(
            name: "FaradayHAL",
            dependencies: ["Faraday"],
            swiftSettings: swiftSettings
        ),
        // HTTP/1.1 on SwiftNIO's own codecs, the call on its connection's event loop; and the TLS,
        // pinning and message conversions it shares with the AsyncHTTPClient adapter.
        .target(
            name: "FaradayNIO",
            dependencies: [
                "Faraday",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                behind("NIO", "NIOCore", from: "swift-nio"),
                behind("NIO", "NIOPosix", from: "swift-nio"),
                behind("NIO", "NIOHTTP1", from: "swift-nio"),
                behind("NIO", "NIOConcurrencyHelpers", from: "swift-nio"),
                behind("NIO", "NIOFoundationEssentialsCompat", from: "swift-nio"),
                behind("NIO", "NIOTLS", from: "swift-nio"),
                behind("NIO", "NIOSSL", from: "swift-nio-ssl"),
                behind("NIO", "NIOExtras", from: "swift-nio-extras"),
                behind("NIO", "Atomics", from: "swift-atomics"),
                behind("NIO", "Crypto", from: "swift-crypto"),
                behind("NIO", "X509", from: "swift-certificates"),
                behind("NIO", "SwiftASN1", from: "swift-asn1"),
            ],
            swiftSettings: swiftSettings
        ),
        // The production adapter on Linux, on AsyncHTTPClient and SwiftNIO.
        .target(
            name: "FaradayAsyncHTTPClient",
            dependencies: [
                "Faraday",
                "FaradayNIO",
                behind("AsyncHTTPClient", "AsyncHTTPClient", from: "async-http-client"),
                behind("AsyncHTTPClient", "NIOCore", from: "swift-nio"),
                behind("AsyncHTTPClient", "NIOPosix", from: "swift-nio"),
                behind("AsyncHTTPClient", "NIOHTTP1", from: "swift-nio"),
                behind("AsyncHTTPClient", "NIOFoundationCompat", from: "swift-nio"),
                behind("AsyncHTTPClient", "NIOSSL", from: "swift-nio-ssl"),
                behind("AsyncHTTPClient", "Tracing", from: "swift-distributed-tracing"),
            ],
            swiftSettings: swiftSettings
        ),
        // Tracing spans and metrics, kept out of the core so that it stays light.
        .target(
            name: "FaradayObservability",
            dependencies: [
                "Faraday",
                behind("Observability", "Tracing", from: "swift-distributed-tracing"),
                behind("Observability", "Metrics", from: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        // XML bodies (EncodeXML, DecodeXML) on XMLCoder, kept out of the core so that it stays light.
        .target(
            name: "FaradayXML",
            dependencies: ["Faraday", behind("XML", "XMLCoder", from: "XMLCoder")],
            swiftSettings: swiftSettings
        ),
        // A ClientTransport for clients made by swift-openapi-generator, sending through a Connection.
        .target(
            name: "FaradayOpenAPI",
            dependencies: [
                "Faraday",
                behind("OpenAPI", "OpenAPIRuntime", from: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: swiftSettings
        ),
        // In-process HTTP and HTTPS servers for tests, examples and benchmarks.
        .target(
            name: "FaradayTestSupport",
            dependencies: [
                "CZlib",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // The parsers that libFuzzer exercises (Scripts/fuzz.sh), and their entry point.
        .target(
            name: "FaradayFuzzTargets",
            dependencies: ["Faraday", "FaradayHAL", "FaradayAsyncHTTPClient", "FaradayNIO", "FaradayTestSupport"],
            swiftSettings: swiftSettings
        ),
        .target(name: "CLibFuzzerDriver", path: "Fuzz/CLibFuzzerDriver"),
        .executableTarget(
            name: "FaradayFuzz",
            dependencies: ["FaradayFuzzTargets", "CLibFuzzerDriver"],
            path: "Fuzz/FaradayFuzz",
            swiftSettings: swiftSettings
        ),
        // The examples, each run with `swift run <name>` against an in-process server.
        example("Quickstart", ["Faraday", "FaradayTestSupport"]),
        example("HALBrowser", ["Faraday", "FaradayHAL", "FaradayTestSupport"]),
        example("StreamingExample", folder: "Streaming", ["Faraday", "FaradayTestSupport"]),
        example("Download", ["Faraday", "FaradayTestSupport"]),
        example("CustomMiddleware", ["Faraday", "FaradayTestSupport"]),
        example("TypedEndpoints", ["Faraday", "FaradayTestSupport"]),
        example("SynchronousUse", ["Faraday", "FaradayTestSupport"]),
        example("TestingWithStubs", ["Faraday"]),
        // A middleware as a library ships it (public API), and the program that uses it.
        .target(
            name: "RequestSigningMiddleware",
            dependencies: ["Faraday", .product(name: "Crypto", package: "swift-crypto")],
            path: "Examples/RequestSigning/Middleware",
            swiftSettings: swiftSettings
        ),
        example(
            "RequestSigning",
            folder: "RequestSigning/Program",
            [
                "Faraday", "FaradayTestSupport", "RequestSigningMiddleware",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .executableTarget(
            name: "StreamingBenchmark",
            dependencies: ["Faraday", "FaradayAsyncHTTPClient", "FaradayTestSupport"],
            path: "Benchmarks/StreamingBenchmark",
            swiftSettings: swiftSettings
        ),
        // The fault campaign (issue 62): calls through FaultServer, checked as they end; the
        // runner in Benchmarks/FaultCampaign/Run, a short version in AdapterConformanceTests.
        .target(
            name: "FaultCampaign",
            dependencies: [
                "Faraday", "FaradayAsyncHTTPClient", "FaradayNIO", "FaradayTestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            path: "Benchmarks/FaultCampaign/Campaign",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FaultCampaignRun",
            dependencies: ["FaultCampaign", "FaradayTestSupport"],
            path: "Benchmarks/FaultCampaign/Run",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FramingBenchmark",
            dependencies: ["Faraday"],
            path: "Benchmarks/FramingBenchmark",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "ClientPoolProbe",
            dependencies: ["Faraday", "FaradayAsyncHTTPClient", "FaradayTestSupport"],
            path: "Benchmarks/ClientPoolProbe",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FaradayTests",
            dependencies: [
                "Faraday", "FaradayTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            // Test data read from its path: standards' own suites, with their licences.
            exclude: ["Resources"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AdapterConformanceTests",
            dependencies: [
                "Faraday", "FaradayAsyncHTTPClient", "FaradayNIO", "FaradayTestSupport", "RequestSigningMiddleware",
                "FaultCampaign",
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            // The HTTP caching suite's tests, read from their path, with their licence.
            exclude: ["Resources"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FaradayHALTests",
            dependencies: ["Faraday", "FaradayHAL", "FaradayAsyncHTTPClient", "FaradayNIO", "FaradayTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FaradayXMLTests",
            dependencies: ["Faraday", "FaradayXML", "FaradayAsyncHTTPClient", "FaradayNIO", "FaradayTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FuzzCorpusTests",
            dependencies: ["FaradayFuzzTargets"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FaradayOpenAPITests",
            dependencies: [
                "Faraday", "FaradayOpenAPI", "FaradayAsyncHTTPClient", "FaradayTestSupport",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            // The spec and the generator's configuration that Generated/ was made from
            // (Scripts/generate-openapi-client.sh); the generator does not run in builds.
            exclude: ["openapi.yaml", "openapi-generator-config.yaml"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FaradayObservabilityTests",
            dependencies: [
                "Faraday", "FaradayObservability", "FaradayAsyncHTTPClient", "FaradayTestSupport",
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
