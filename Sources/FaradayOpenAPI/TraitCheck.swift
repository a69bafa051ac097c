// FaradayOpenAPI is built only with the package trait `OpenAPI`, so that a package that uses
// `Faraday` alone never resolves its dependencies. Enable it where you depend on faraday-swift:
//
//     .package(url: "https://github.com/faraday-swift/faraday-swift.git", from: "0.1.0", traits: ["OpenAPI"]),
//
// and in this repository: `swift build --enable-all-traits`.
#if !OpenAPI
#error("FaradayOpenAPI needs the package trait OpenAPI: name it where you depend on faraday-swift.")
#endif
