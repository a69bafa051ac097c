#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Zstandard (RFC 8878) on the system's libzstd, loaded at run time (see ``SystemLibrary``).
/// Frames follow one another in a body; skippable frames are skipped. Windows are limited to
/// 8 MiB, as RFC 9659 has HTTP's `zstd` coding limit them, so that a server cannot make the
/// decoder allocate more.
final class ZstdDecompressor: Decompressor {
    /// libzstd's functions, or `nil` where the library is not installed.
    static let library = Library()

    private let library: Library
    private let context: OpaquePointer
    /// Whether the input so far ends at the end of a frame.
    private var isBetweenFrames = true

    init() throws(FaradayError) {
        guard let library = Self.library, let context = library.createContext() else {
            throw FaradayError(.decompressionFailed, "Zstandard cannot be decoded here: libzstd is not installed.")
        }
        self.library = library
        self.context = context
        guard library.isError(library.setParameter(context, Library.windowLogMax, 23)) == 0 else {
            _ = library.freeContext(context)
            throw FaradayError(.decompressionFailed, "libzstd refused the 8 MiB window limit.")
        }
    }

    deinit {
        _ = library.freeContext(context)
    }

    var isAtEnd: Bool { isBetweenFrames }

    func decompress(
        _ input: UnsafeRawBufferPointer,
        window: UnsafeMutableBufferPointer<UInt8>,
        into output: inout Data,
        budget: inout DecodedSize
    )
        throws(FaradayError)
    {
        guard let base = input.baseAddress, let start = window.baseAddress else { return }
        var source = Library.InBuffer(source: base, size: input.count, position: 0)
        let before = output.count
        var outputWasFull: Bool
        repeat {
            var destination = Library.OutBuffer(
                destination: UnsafeMutableRawPointer(start),
                size: window.count,
                position: 0
            )
            let result = withUnsafeMutablePointer(to: &destination) { destination in
                withUnsafeMutablePointer(to: &source) { library.decompressStream(context, destination, $0) }
            }
            if library.isError(result) != 0 {
                let reason = library.errorName(result).map { String(cString: $0) } ?? "error \(result)"
                throw FaradayError(.decompressionFailed, "The Zstandard body is corrupt (\(reason)).")
            }
            output.append(start, count: destination.position)
            try budget.check(output: output.count - before, input: source.position)
            isBetweenFrames = result == 0
            // A full window may hold back more of this frame; a frame that ended exactly at the
            // window's end (0: decoded and flushed) does not, and another call would start
            // reading the next frame's header from no input.
            outputWasFull = destination.position == destination.size && result != 0
        } while source.position < source.size || outputWasFull
        budget.add(output: output.count - before, input: input.count)
    }

    /// The few functions of libzstd's streaming decoder (`zstd.h`) this uses.
    struct Library: Sendable {
        /// `ZSTD_inBuffer`: laid out as the C struct (a pointer, then two `size_t`), as Swift lays
        /// out a struct's stored properties in order.
        struct InBuffer {
            var source: UnsafeRawPointer
            var size: Int
            var position: Int
        }

        /// `ZSTD_outBuffer`, likewise.
        struct OutBuffer {
            var destination: UnsafeMutableRawPointer
            var size: Int
            var position: Int
        }

        typealias CreateContext = @convention(c) () -> OpaquePointer?
        typealias FreeContext = @convention(c) (OpaquePointer) -> Int
        typealias SetParameter = @convention(c) (OpaquePointer, Int32, Int32) -> Int
        /// `ZSTD_decompressStream(context, &output, &input)`, the buffers as ``OutBuffer`` and ``InBuffer``.
        typealias DecompressStream =
            @convention(c) (OpaquePointer, UnsafeMutableRawPointer, UnsafeMutableRawPointer) -> Int
        typealias IsError = @convention(c) (Int) -> UInt32
        typealias ErrorName = @convention(c) (Int) -> UnsafePointer<CChar>?

        /// `ZSTD_d_windowLogMax`.
        static let windowLogMax: Int32 = 100

        let createContext: CreateContext
        let freeContext: FreeContext
        let setParameter: SetParameter
        let decompressStream: DecompressStream
        let isError: IsError
        let errorName: ErrorName

        init?() {
            guard let library = SystemLibrary(SystemLibrary.names(linux: "libzstd.so.1", darwin: "libzstd.1.dylib")),
                let createContext = library.function("ZSTD_createDCtx", as: CreateContext.self),
                let freeContext = library.function("ZSTD_freeDCtx", as: FreeContext.self),
                let setParameter = library.function("ZSTD_DCtx_setParameter", as: SetParameter.self),
                let decompressStream = library.function("ZSTD_decompressStream", as: DecompressStream.self),
                let isError = library.function("ZSTD_isError", as: IsError.self),
                let errorName = library.function("ZSTD_getErrorName", as: ErrorName.self)
            else { return nil }
            (self.createContext, self.freeContext, self.setParameter) = (createContext, freeContext, setParameter)
            (self.decompressStream, self.isError, self.errorName) = (decompressStream, isError, errorName)
        }
    }
}
