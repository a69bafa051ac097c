// FaradayObservability is built only with the package trait `Observability`, so that a package that uses
// `Faraday` alone never resolves its dependencies. Enable it where you depend on faraday-swift:
//
//     .package(url: "https://github.com/faraday-swift/faraday-swift.git", from: "0.1.0", traits: ["Observability"]),
//
// and in this repository: `swift build --enable-all-traits`.
#if !Observability
#error("FaradayObservability needs the package trait Observability: name it where you depend on faraday-swift.")
#endif
