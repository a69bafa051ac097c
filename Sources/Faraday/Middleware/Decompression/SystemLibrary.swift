#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A shared library of the system's, loaded when first asked for: the Brotli and Zstandard
/// decoders are offered only where their library is installed, and a build never needs their
/// headers (`dlopen`, as curl and browsers load optional codecs).
///
/// It is used once, to look up the functions a codec's `Library` keeps; the handle is never
/// closed, so those functions stay valid.
struct SystemLibrary {
    private let handle: UnsafeMutableRawPointer

    /// The first of `paths` that loads, or `nil` when none does.
    init?(_ paths: [String]) {
        guard let handle = paths.lazy.compactMap({ dlopen($0, RTLD_NOW | RTLD_LOCAL) }).first else { return nil }
        self.handle = handle
    }

    /// The function `name`, as the C type `type`; `nil` when the library has no such symbol.
    func function<Function>(_ name: String, as type: Function.Type) -> Function? {
        dlsym(handle, name).map { unsafeBitCast($0, to: type) }
    }

    /// Where a library is looked for: full paths in the system's library folders (on Apple
    /// platforms, Homebrew's and MacPorts'), never a bare name. A bare name would be looked up
    /// through the executable's run path too, which SwiftPM sets to `$ORIGIN` on Linux, and on
    /// Apple platforms in the working folder: a `libzstd.so.1` put beside the program would be
    /// loaded and run in its place.
    static func names(linux soname: String, darwin dylib: String) -> [String] {
        #if canImport(Darwin)
        ["/opt/homebrew/lib/", "/usr/local/lib/", "/opt/local/lib/"].map { $0 + dylib }
        #else
        systemFolders.map { $0 + soname }
        #endif
    }

    /// The folders Debian, Ubuntu, Fedora, Alpine and Arch keep their libraries in, the
    /// architecture's own first; none of them writable but by root.
    static let systemFolders: [String] = {
        #if arch(x86_64)
        let multiarch = "x86_64-linux-gnu"
        #elseif arch(arm64)
        let multiarch = "aarch64-linux-gnu"
        #else
        let multiarch = "unknown"
        #endif
        return ["/usr/lib/\(multiarch)/", "/lib/\(multiarch)/", "/usr/lib64/", "/lib64/", "/usr/lib/", "/lib/"]
    }()
}
