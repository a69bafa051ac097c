import HTTPTypes

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

// The file format: magic line, body length, body, then the head as JSON.
extension DiskCacheStore {
    static let fileExtension = "entry"
    /// Version 2 keeps credentials as digests; a file of version 1 is not read.
    static let magic = Data("faraday-cache 2\n".utf8)
    /// The magic line, then the body's length as 16 hex digits and a newline.
    static let bodyOffset = 16 + 17

    /// What a file holds after the body, as JSON.
    struct Head: Codable {
        var key: String
        var url: String
        var varying: [[String?]]
        var status: Int
        var reason: String
        var headers: [[String]]
        var requestDate: Double
        var responseDate: Double
    }

    static func header(bodyLength: Int) -> Data {
        let digits = String(bodyLength, radix: 16)
        return magic + Data((String(repeating: "0", count: 16 - digits.utf8.count) + digits + "\n").utf8)
    }

    static func head(of entry: CacheEntry, key: String) -> Data? {
        try? JSONEncoder().encode(
            Head(
                key: key,
                url: entry.url.absoluteString,
                varying: entry.varyingRequestHeaders.sorted { $0.key < $1.key }.map { [$0.key, $0.value] },
                status: entry.status.code,
                reason: entry.status.reasonPhrase,
                headers: entry.headers.map { [$0.name.rawName, $0.value] },
                requestDate: entry.requestDate.timeIntervalSince1970,
                responseDate: entry.responseDate.timeIntervalSince1970
            )
        )
    }

    enum ReadResult {
        /// The entry, and the file's signature through the descriptor it was read by (after the
        /// touch), so that a file renamed into place meanwhile is not taken for this one.
        case entry(CacheEntry, FileSignature)
        case invalid
        case unreadable
    }

    /// Reads a file's head (the body stays in the file), and counts the read as a use: its
    /// modification time is set to `now` when it is a minute old or more.
    /// A link, another user's file, anything but a plain file of this user is invalid (and so
    /// removed), never read.
    static func read(_ file: URL, key: String, now: Date) -> ReadResult {
        let handle: OpenFile
        switch openOwnFile(file) {
        case .own(let opened): handle = opened
        case .foreign: return .invalid
        case .missing, .unreadable: return .unreadable
        }
        defer { try? handle.close() }
        guard var signature = FileSignature(descriptor: handle.fileDescriptor) else { return .unreadable }
        if now.timeIntervalSince(signature.modified) >= 60 {
            _ = futimens(handle.fileDescriptor, nil)
            signature = FileSignature(descriptor: handle.fileDescriptor) ?? signature
        }
        // `read` answers nil at the end of the file: an empty file is read as empty, not unreadable.
        guard let start = try? handle.read(upToCount: bodyOffset) ?? Data() else { return .unreadable }
        guard start.count == bodyOffset, start.starts(with: magic), start.last == UInt8(ascii: "\n"),
            let length = Int(String(decoding: start.dropFirst(magic.count).dropLast(), as: UTF8.self), radix: 16),
            length >= 0, (try? handle.seek(toOffset: UInt64(bodyOffset) + UInt64(length))) != nil,
            let json = try? handle.readToEnd(), let head = try? JSONDecoder().decode(Head.self, from: json),
            head.key == key, let url = URL(string: head.url), (100...999).contains(head.status)
        else { return .invalid }
        var headers = HTTPFields()
        for pair in head.headers {
            guard pair.count == 2, let name = HTTPField.Name(pair[0]) else { return .invalid }
            headers.append(HTTPField(name: name, value: pair[1]))
        }
        var varying: [String: String?] = [:]
        for pair in head.varying {
            guard pair.count == 2, let name = pair[0] else { return .invalid }
            varying[name] = pair[1]
        }
        return .entry(
            CacheEntry(
                url: url,
                varyingRequestHeaders: varying,
                status: HTTPResponse.Status(code: head.status, reasonPhrase: head.reason),
                headers: headers,
                body: ResponseBody(file: file, offset: bodyOffset, length: length),
                requestDate: Date(timeIntervalSince1970: head.requestDate),
                responseDate: Date(timeIntervalSince1970: head.responseDate)
            ),
            signature
        )
    }

    static func describe(_ varying: [String: String?]) -> String {
        varying.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value ?? "\u{0}")" }.joined(separator: "\n")
    }

    /// FNV-1a, 64 bits, as 16 hex digits: a stable file name (the key in the file settles collisions).
    static func hash(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.utf8.count) + digits
    }
}
