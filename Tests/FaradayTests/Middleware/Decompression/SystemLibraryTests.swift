import Foundation
import Testing

@testable import Faraday

/// Issue 66: the codecs' libraries are loaded by full path, never by a bare name that the
/// executable's run path (`$ORIGIN` on Linux) or the working folder could answer.
@Suite struct SystemLibraryTests {
    @Test func everyPlaceLookedInIsAFullPathInASystemFolder() {
        let names = SystemLibrary.names(linux: "libzstd.so.1", darwin: "libzstd.1.dylib")
        #expect(!names.isEmpty)
        for name in names {
            #expect(name.hasPrefix("/"), "\(name) is looked up through the run path")
            #expect(name.hasSuffix("/libzstd.so.1") || name.hasSuffix("/libzstd.1.dylib"))
        }
    }

    #if os(Linux)
    /// CI installs both (`.ci/run`); FoundationNetworking's libcurl needs them on Linux anyway.
    @Test func theSystemsCodecsAreFoundThere() {
        for soname in ["libzstd.so.1", "libbrotlidec.so.1"] {
            #expect(SystemLibrary(SystemLibrary.names(linux: soname, darwin: "")) != nil, "\(soname)")
        }
    }
    #endif
}
