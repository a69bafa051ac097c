// swift-tools-version:6.1
// Issue 63's footprint, workload by workload: raw AsyncHTTPClient and Faraday's six on NIOAdapter,
// each a program of its own, Faraday built as a NIO user builds it (`traits: ["NIO"]`, so no
// URLSession and no FoundationNetworking). `run.sh` beside this file runs both.

import PackageDescription

let package = Package(
    name: "faraday-footprint-workloads",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "faraday-swift", path: "../../..", traits: ["NIO"]),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        // The workloads and the report, shared by both programs: no networking library.
        .target(name: "Workload", swiftSettings: [.swiftLanguageMode(.v6)]),
        .executableTarget(
            name: "RawAsyncHTTPClient",
            dependencies: [
                "Workload",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "FaradayNIOSix",
            dependencies: [
                "Workload",
                .product(name: "Faraday", package: "faraday-swift"),
                .product(name: "FaradayNIO", package: "faraday-swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
