import Foundation

/// A shared library of the system's, loaded when first asked for: the Brotli and Zstandard
/// decoders are offered only where their library is installed, and a build never needs their
/// headers (`dlopen`, as curl and browsers load optional codecs).
///
/// It is used once, to look up the functions a codec's `Library` keeps; the handle is never
/// closed, so those functions stay valid.
struct SystemLibrary {
    private let handle: UnsafeMutableRawPointer

    /// The first of `names` that loads (a bare name is looked up where the system looks, a path
    /// as given), or `nil` when none does.
    init?(_ names: [String]) {
        guard let handle = names.lazy.compactMap({ dlopen($0, RTLD_NOW | RTLD_LOCAL) }).first else { return nil }
        self.handle = handle
    }

    /// The function `name`, as the C type `type`; `nil` when the library has no such symbol.
    func function<Function>(_ name: String, as type: Function.Type) -> Function? {
        dlsym(handle, name).map { unsafeBitCast($0, to: type) }
    }

    /// The names a library goes by: its Linux soname, and on Apple platforms its dylib where
    /// Homebrew and MacPorts put it.
    static func names(linux soname: String, darwin dylib: String) -> [String] {
        #if canImport(Darwin)
        [dylib, "/opt/homebrew/lib/" + dylib, "/usr/local/lib/" + dylib, "/opt/local/lib/" + dylib]
        #else
        [soname]
        #endif
    }
}
