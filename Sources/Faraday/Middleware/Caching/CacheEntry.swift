import Foundation
import HTTPTypes

/// A stored response: what ``HTTPCache`` keeps in a ``CacheStore`` and serves from it.
public struct CacheEntry: Sendable, Hashable {
    /// The URL the response answered (without fragment).
    public var url: URL
    /// The values the request had for each header the response's `Vary` names (lowercased
    /// names; an absent header is `nil`): this entry serves only requests with the same values.
    public var varyingRequestHeaders: [String: String?]
    /// The response status.
    public var status: HTTPResponse.Status
    /// The response headers as stored (updated by each revalidation).
    public var headers: HTTPFields
    /// The whole response body, in memory or in a store's file.
    public var body: Body
    /// When the request that brought the response was sent (RFC 9111 `request_time`).
    public var requestDate: Date
    /// When the response arrived (RFC 9111 `response_time`).
    public var responseDate: Date

    /// Creates an entry.
    public init(
        url: URL,
        varyingRequestHeaders: [String: String?] = [:],
        status: HTTPResponse.Status,
        headers: HTTPFields,
        body: Body,
        requestDate: Date,
        responseDate: Date
    ) {
        self.url = url
        self.varyingRequestHeaders = varyingRequestHeaders
        self.status = status
        self.headers = headers
        self.body = body
        self.requestDate = requestDate
        self.responseDate = responseDate
    }

    /// The store's key for a request: its URL without fragment. Variants of one URL (`Vary`)
    /// share the key and differ in ``varyingRequestHeaders``.
    public static func key(for url: URL) -> String {
        guard url.fragment != nil, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return url.absoluteString
        }
        components.fragment = nil
        return components.url?.absoluteString ?? url.absoluteString
    }

    /// An estimate of the memory the entry takes: body, header text and a fixed overhead.
    var size: Int {
        body.count + headers.reduce(0) { $0 + $1.name.rawName.utf8.count + $1.value.utf8.count + 4 } + 256
    }

    /// A stored body: bytes in memory, or a range of a file that a store keeps (read in pieces
    /// when it is served, so that a large body is never held whole).
    public enum Body: Sendable, Hashable {
        /// The bytes.
        case data(Data)
        /// `length` bytes of `file` from `offset`.
        case file(URL, offset: Int, length: Int)

        /// The body's length in bytes.
        public var count: Int {
            switch self {
            case .data(let data): data.count
            case .file(_, _, let length): length
            }
        }

        /// The whole body in memory; `nil` when its file cannot be read whole (removed meanwhile).
        public func bytes() -> Data? {
            switch self {
            case .data(let data): return data
            case .file(let url, let offset, let length):
                guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
                defer { try? handle.close() }
                guard (try? handle.seek(toOffset: UInt64(offset))) != nil,
                    let data = try? handle.read(upToCount: length) ?? Data(), data.count == length
                else { return nil }
                return data
            }
        }

        /// The body in pieces of at most `chunkSize` bytes.
        func chunks(chunkSize: Int = 64 * 1024) -> ByteStream {
            ByteStream(BodyChunks(body: self, chunkSize: chunkSize))
        }
    }
}

/// The pieces of a ``CacheEntry/Body``: one for bytes in memory, a read each for a file.
private struct BodyChunks: AsyncSequence, Sendable {
    let body: CacheEntry.Body
    let chunkSize: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        let body: CacheEntry.Body
        let chunkSize: Int
        var handle: FileHandle?
        var remaining: Int?

        mutating func next() async throws -> Data? {
            switch body {
            case .data(let data):
                guard remaining == nil else { return nil }
                remaining = 0
                return data.isEmpty ? nil : data
            case .file(let url, let offset, let length):
                if handle == nil {
                    handle = try FileHandle(forReadingFrom: url)
                    try handle?.seek(toOffset: UInt64(offset))
                    remaining = length
                }
                guard let handle, let left = remaining, left > 0 else {
                    try? handle?.close()
                    return nil
                }
                let chunk = try handle.read(upToCount: Swift.min(chunkSize, left)) ?? Data()
                guard !chunk.isEmpty else {
                    try? handle.close()
                    throw FaradayError(.storageFailed, "The cached body ended early: its file was cut short.")
                }
                remaining = left - chunk.count
                return chunk
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(body: body, chunkSize: chunkSize) }
}

extension CacheEntry: CustomReflectable {
    /// The entry through ``Redaction``: its URL, the credential request headers it varies on,
    /// its credential response headers, and the body's size only.
    public var customMirror: Mirror {
        let redaction = Redaction()
        var varying: [String: String?] = [:]
        for (name, value) in varyingRequestHeaders {
            varying[name] =
                Redaction.matches(name, redaction.headers) ? value.map { _ in redaction.replacement } : value
        }
        return Mirror(
            self,
            children: [
                "url": redaction.redacting(url), "varyingRequestHeaders": varying,
                "status": status, "headers": redaction.redact(headers), "body": "\(body.count) bytes",
                "requestDate": requestDate, "responseDate": responseDate,
            ],
            displayStyle: .struct
        )
    }
}
