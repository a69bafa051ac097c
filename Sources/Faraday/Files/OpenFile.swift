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

/// An open file, read and written through its descriptor (POSIX), closed by ``close()`` or when
/// the last reference goes: what the downloads, the disk cache and file bodies read and write
/// with. It is Foundation's `FileHandle` without Foundation: FoundationEssentials has none, and a
/// program that loads Foundation for it starts about 6 MiB larger.
///
/// One task uses a file at a time (the callers hold it in their own state); the descriptor is
/// behind a lock all the same, so that a close racing a write cannot close it twice.
final class OpenFile: Sendable {
    /// The descriptor, `-1` once closed.
    private let state: Locked<Int32>
    /// The path, for errors.
    private let path: String

    /// The descriptor, for system calls of the caller's own (`fstat`, `futimens`); `-1` once closed.
    var fileDescriptor: Int32 { state.snapshot }
    private var descriptor: Int32 { state.snapshot }

    /// Takes `descriptor` over: the file closes it.
    init(descriptor: Int32, path: String) {
        self.state = Locked(descriptor)
        self.path = path
    }

    /// Opens an existing file for writing, at its start (no truncation).
    convenience init(forWritingTo url: URL) throws(OpenFileError) {
        try self.init(url, flags: O_WRONLY)
    }

    /// Opens an existing file for reading.
    convenience init(forReadingFrom url: URL) throws(OpenFileError) {
        try self.init(url, flags: O_RDONLY)
    }

    private convenience init(_ url: URL, flags: Int32) throws(OpenFileError) {
        let path = url.path
        let descriptor = open(path, flags | O_CLOEXEC)
        guard descriptor >= 0 else { throw OpenFileError(operation: "open", path: path) }
        self.init(descriptor: descriptor, path: path)
    }

    deinit {
        let descriptor = state.snapshot
        if descriptor >= 0 { _ = systemClose(descriptor) }
    }

    /// Writes all of `data` at the current offset.
    func write(contentsOf data: some DataProtocol) throws(OpenFileError) {
        let descriptor = self.descriptor
        for region in data.regions {
            var failed = false
            region.withUnsafeBytes { bytes in
                guard let base = bytes.baseAddress else { return }
                var offset = 0
                while offset < bytes.count {
                    let written = systemWrite(descriptor, base + offset, bytes.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        failed = true
                        return
                    }
                    offset += written
                }
            }
            if failed { throw OpenFileError(operation: "write", path: path) }
        }
    }

    /// Reads up to `count` bytes from the current offset: fewer only at the end of the file.
    func read(upToCount count: Int) throws(OpenFileError) -> Data? {
        let descriptor = self.descriptor
        var data = Data(count: count)
        var filled = 0
        var failed = false
        data.withUnsafeMutableBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            while filled < count {
                let read = systemRead(descriptor, base + filled, count - filled)
                if read < 0 {
                    if errno == EINTR { continue }
                    failed = true
                    return
                }
                if read == 0 { return }
                filled += read
            }
        }
        if failed { throw OpenFileError(operation: "read", path: path) }
        data.count = filled
        return data
    }

    /// Reads from the current offset to the end of the file.
    func readToEnd() throws(OpenFileError) -> Data? {
        var result = Data()
        while let chunk = try read(upToCount: 64 * 1024), !chunk.isEmpty { result += chunk }
        return result
    }

    /// Moves the offset to `offset` bytes from the start.
    func seek(toOffset offset: UInt64) throws(OpenFileError) {
        guard lseek(descriptor, off_t(offset), SEEK_SET) >= 0 else {
            throw OpenFileError(operation: "seek", path: path)
        }
    }

    /// Moves the offset to the end of the file, and returns it.
    @discardableResult
    func seekToEnd() throws(OpenFileError) -> UInt64 {
        let end = lseek(descriptor, 0, SEEK_END)
        guard end >= 0 else { throw OpenFileError(operation: "seek", path: path) }
        return UInt64(end)
    }

    /// Cuts the file to `offset` bytes (or extends it with zeros) and moves the offset there.
    func truncate(atOffset offset: UInt64) throws(OpenFileError) {
        guard ftruncate(descriptor, off_t(offset)) == 0 else { throw OpenFileError(operation: "truncate", path: path) }
        try seek(toOffset: offset)
    }

    /// Flushes what was written to the storage device.
    func synchronize() throws(OpenFileError) {
        guard fsync(descriptor) == 0 else { throw OpenFileError(operation: "fsync", path: path) }
    }

    /// Closes the file; later calls do nothing.
    func close() throws(OpenFileError) {
        let closing = state.withLock { descriptor in
            defer { descriptor = -1 }
            return descriptor
        }
        guard closing >= 0 else { return }
        guard systemClose(closing) == 0 else { throw OpenFileError(operation: "close", path: path) }
    }
}

/// A system call on a file failed.
struct OpenFileError: Error, CustomStringConvertible {
    let operation: String
    let path: String
    let code: Int32

    init(operation: String, path: String, code: Int32 = errno) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    var description: String { "\(operation) \(path): \(String(cString: strerror(code)))" }
}

private func systemClose(_ descriptor: Int32) -> Int32 {
    #if canImport(Darwin)
    Darwin.close(descriptor)
    #elseif canImport(Musl)
    Musl.close(descriptor)
    #else
    Glibc.close(descriptor)
    #endif
}

private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Darwin)
    Darwin.write(descriptor, buffer, count)
    #elseif canImport(Musl)
    Musl.write(descriptor, buffer, count)
    #else
    Glibc.write(descriptor, buffer, count)
    #endif
}

private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    #if canImport(Darwin)
    Darwin.read(descriptor, buffer, count)
    #elseif canImport(Musl)
    Musl.read(descriptor, buffer, count)
    #else
    Glibc.read(descriptor, buffer, count)
    #endif
}
