// FaradayNIO is built only with the package trait `NIO`, so that a package that uses
// `Faraday` alone never resolves its dependencies. Enable it where you depend on faraday-swift:
//
//     .package(url: "https://github.com/faraday-swift/faraday-swift.git", from: "0.1.0", traits: ["NIO"]),
//
// and in this repository: `swift build --enable-all-traits`.
#if !NIO
#error("FaradayNIO needs the package trait NIO: name it where you depend on faraday-swift.")
#endif
