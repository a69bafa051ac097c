// FaradayAsyncHTTPClient is built only with the package trait `AsyncHTTPClient`, so that a package that uses
// `Faraday` alone never resolves its dependencies. Enable it where you depend on faraday-swift:
//
//     .package(url: "https://github.com/faraday-swift/faraday-swift.git", from: "0.1.0", traits: ["AsyncHTTPClient"]),
//
// and in this repository: `swift build --enable-all-traits`.
#if !AsyncHTTPClient
#error("FaradayAsyncHTTPClient needs the package trait AsyncHTTPClient: name it where you depend on faraday-swift.")
#endif
