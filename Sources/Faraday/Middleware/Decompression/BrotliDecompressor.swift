#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Brotli (RFC 7932) on the system's libbrotlidec, loaded at run time (see ``SystemLibrary``).
/// Windows up to the format's 16 MiB; the "large window" extension, which HTTP does not use, is
/// refused.
final class BrotliDecompressor: Decompressor {
    /// libbrotlidec's functions, or `nil` where the library is not installed.
    static let library = Library()

    private let library: Library
    private let state: OpaquePointer
    private var isFinished = false

    init() throws(FaradayError) {
        guard let library = Self.library, let state = library.createInstance(nil, nil, nil) else {
            throw FaradayError(.decompressionFailed, "Brotli cannot be decoded here: libbrotlidec is not installed.")
        }
        self.library = library
        self.state = state
    }

    deinit {
        library.destroyInstance(state)
    }

    var isAtEnd: Bool { isFinished }

    func decompress(
        _ input: UnsafeRawBufferPointer,
        window: UnsafeMutableBufferPointer<UInt8>,
        into output: inout Data,
        budget: inout DecodedSize
    )
        throws(FaradayError)
    {
        guard let base = input.bindMemory(to: UInt8.self).baseAddress, let start = window.baseAddress else { return }
        guard !isFinished else {
            throw FaradayError(.decompressionFailed, "Bytes follow the end of the Brotli stream.")
        }
        var nextIn: UnsafePointer<UInt8>? = base
        var availableIn = input.count
        let before = output.count
        var result: Int32
        repeat {
            var nextOut: UnsafeMutablePointer<UInt8>? = start
            var availableOut = window.count
            result = library.decompressStream(state, &availableIn, &nextIn, &availableOut, &nextOut, nil)
            output.append(start, count: window.count - availableOut)
            try budget.check(output: output.count - before, input: input.count - availableIn)
        } while result == Library.needsMoreOutput
        switch result {
        case Library.needsMoreInput:
            break
        case Library.success:
            isFinished = true
            guard availableIn == 0 else {
                throw FaradayError(.decompressionFailed, "Bytes follow the end of the Brotli stream.")
            }
        default:
            let code = library.errorCode(state)
            let reason = library.errorString(code).map { String(cString: $0) } ?? "error \(code)"
            throw FaradayError(.decompressionFailed, "The Brotli body is corrupt (\(reason)).")
        }
        budget.add(output: output.count - before, input: input.count)
    }

    /// The few functions of libbrotlidec's decoder API (`brotli/decode.h`) this uses.
    struct Library: Sendable {
        typealias CreateInstance =
            @convention(c) (OpaquePointer?, OpaquePointer?, UnsafeMutableRawPointer?) -> OpaquePointer?
        typealias DestroyInstance = @convention(c) (OpaquePointer) -> Void
        typealias DecompressStream =
            @convention(c) (
                OpaquePointer, UnsafeMutablePointer<Int>, UnsafeMutablePointer<UnsafePointer<UInt8>?>,
                UnsafeMutablePointer<Int>, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
                UnsafeMutablePointer<Int>?
            ) -> Int32
        typealias ErrorCode = @convention(c) (OpaquePointer) -> Int32
        typealias ErrorString = @convention(c) (Int32) -> UnsafePointer<CChar>?

        // BrotliDecoderResult
        static let success: Int32 = 1
        static let needsMoreInput: Int32 = 2
        static let needsMoreOutput: Int32 = 3

        let createInstance: CreateInstance
        let destroyInstance: DestroyInstance
        let decompressStream: DecompressStream
        let errorCode: ErrorCode
        let errorString: ErrorString

        init?() {
            guard
                let library = SystemLibrary(
                    SystemLibrary.names(linux: "libbrotlidec.so.1", darwin: "libbrotlidec.1.dylib")
                ),
                let createInstance = library.function("BrotliDecoderCreateInstance", as: CreateInstance.self),
                let destroyInstance = library.function("BrotliDecoderDestroyInstance", as: DestroyInstance.self),
                let decompressStream = library.function("BrotliDecoderDecompressStream", as: DecompressStream.self),
                let errorCode = library.function("BrotliDecoderGetErrorCode", as: ErrorCode.self),
                let errorString = library.function("BrotliDecoderErrorString", as: ErrorString.self)
            else { return nil }
            (self.createInstance, self.destroyInstance, self.decompressStream) = (
                createInstance, destroyInstance, decompressStream
            )
            (self.errorCode, self.errorString) = (errorCode, errorString)
        }
    }
}
