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

/// The `.part` file of a download and the record beside it (`.part.json`: the URL and the
/// validator the bytes were sent under), which say whether and where a download may resume.
struct PartialDownload: Sendable {
    let destination: URL
    var bytesURL: URL { URL(fileURLWithPath: destination.path + ".part") }
    var recordURL: URL { URL(fileURLWithPath: destination.path + ".part.json") }

    private struct Record: Codable {
        var version = 1
        var url: String
        var validator: String
    }

    /// Where a download of `url` can resume, and the validator for `If-Range`: `nil` when there
    /// is no partial file, or it is empty, or it came from another URL or without a validator.
    func resumePoint(for url: URL) -> (offset: Int64, validator: String)? {
        guard let data = try? Data(contentsOf: recordURL),
            let record = try? JSONDecoder().decode(Record.self, from: data),
            record.version == 1, record.url == url.absoluteString,
            let size = FileSignature(itemAt: bytesURL.path)?.size, size > 0
        else { return nil }
        return (size, record.validator)
    }

    /// Opens the partial file to write from `offset`: from the start (a new record with
    /// `validator`, or none, which makes the bytes unresumable) or after the bytes kept.
    func open(at offset: Int64, url: URL, validator: String?) throws(FaradayError) -> OpenFile {
        do {
            let directory = bytesURL.deletingLastPathComponent()
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            if offset == 0 {
                try? FileManager.default.removeItem(at: recordURL)
                guard FileManager.default.createFile(atPath: bytesURL.path, contents: nil) else {
                    throw CocoaError(.fileWriteNoPermission)
                }
                if let validator {
                    let record = try JSONEncoder().encode(Record(url: url.absoluteString, validator: validator))
                    try record.write(to: recordURL, options: .atomic)
                }
            }
            let handle = try OpenFile(forWritingTo: bytesURL)
            try handle.truncate(atOffset: UInt64(offset))
            try handle.seekToEnd()
            return handle
        } catch {
            throw FaradayError(.storageFailed, "Cannot write \(bytesURL.path): \(error)")
        }
    }

    /// Moves the whole file into place, replacing what was there, and removes the record.
    func commit() throws(FaradayError) {
        if rename(bytesURL.path, destination.path) != 0 {
            throw FaradayError(
                .storageFailed,
                "Cannot move the download to \(destination.path): \(String(cString: strerror(errno)))."
            )
        }
        try? FileManager.default.removeItem(at: recordURL)
    }

    /// Removes the partial file and its record.
    func remove() {
        try? FileManager.default.removeItem(at: bytesURL)
        try? FileManager.default.removeItem(at: recordURL)
    }
}
