// FaradayXML is built only with the package trait `XML`, so that a package that uses
// `Faraday` alone never resolves its dependencies. Enable it where you depend on faraday-swift:
//
//     .package(url: "https://github.com/faraday-swift/faraday-swift.git", from: "0.1.0", traits: ["XML"]),
//
// and in this repository: `swift build --enable-all-traits`.
#if !XML
#error("FaradayXML needs the package trait XML: name it where you depend on faraday-swift.")
#endif
