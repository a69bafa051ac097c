import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The file a ``CassetteAdapter`` records to and replays from: stable, readable JSON with a
/// version number, safe to commit (credentials and cookies redacted on write).
///
/// ```json
/// {"version": 1, "interactions": [{"request": {"method": "GET", "url": "https://…", …},
///                                  "response": {"status": 200, "headers": [["content-type", "…"]],
///                                               "body": {"text": "…"}}, "recordedAt": "…"}]}
/// ```
public struct Cassette: Codable, Sendable, Equatable {
    /// The format this version of Faraday reads and writes.
    public static let currentVersion = 1

    /// The format's version.
    public var version: Int
    /// The recorded interactions, in the order they were recorded.
    public var interactions: [CassetteInteraction]

    /// An empty cassette.
    public init(interactions: [CassetteInteraction] = []) {
        self.version = Self.currentVersion
        self.interactions = interactions
    }

    /// Reads a cassette; `nil` when there is no file.
    ///
    /// - Throws: ``FaradayError/Code/storageFailed`` when the file cannot be read or is of another
    ///   version, ``FaradayError/Code/parsingFailed`` when it is not a cassette.
    public static func load(from file: URL) throws(FaradayError) -> Cassette? {
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw FaradayError(.storageFailed, "Cannot read the cassette \(file.path): \(error)")
        }
        struct Versioned: Decodable { let version: Int }
        guard let versioned = try? JSONDecoder().decode(Versioned.self, from: data) else {
            throw FaradayError(.parsingFailed, "\(file.path) is not a cassette (no version number).")
        }
        guard versioned.version == currentVersion else {
            throw FaradayError(
                .storageFailed,
                "The cassette \(file.path) is of version \(versioned.version); this Faraday reads version \(currentVersion). Record it again."
            )
        }
        let cassette: Cassette
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            cassette = try decoder.decode(Cassette.self, from: data)
        } catch {
            throw FaradayError(.parsingFailed, "The cassette \(file.path) is corrupt: \(error).")
        }
        // Values a replay could not use (a status past 999, a delay of years) are refused here.
        for (index, interaction) in cassette.interactions.enumerated() {
            let delays = interaction.response.chunks?.map(\.delay) ?? []
            guard (100...999).contains(interaction.response.status),
                delays.allSatisfy({ $0.isFinite && $0 >= 0 && $0 <= 3600 })
            else {
                throw FaradayError(
                    .parsingFailed,
                    "The cassette \(file.path) is corrupt: interaction \(index) has a status or a delay out of range."
                )
            }
        }
        return cassette
    }

    /// Writes the cassette (whole, atomically), creating its folder.
    public func save(to file: URL) throws(FaradayError) {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            encoder.dateEncodingStrategy = .iso8601
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try encoder.encode(self).write(to: file, options: .atomic)
        } catch {
            throw FaradayError(.storageFailed, "Cannot write the cassette \(file.path): \(error)")
        }
    }
}

/// One request and the response it got.
public struct CassetteInteraction: Codable, Sendable, Equatable {
    /// The request as sent, redacted.
    public var request: Request
    /// The response as received, redacted.
    public var response: Response
    /// When it was recorded.
    public var recordedAt: Date

    /// A recorded request.
    public struct Request: Codable, Sendable, Equatable {
        /// The method.
        public var method: String
        /// The URL, credentials in its query and user info redacted.
        public var url: String
        /// The header fields in order, `[name, value]`, credential values redacted.
        public var headers: [[String]]
        /// The body, if any (in the file: UTF-8 text as it is, other bytes in base64).
        public var body: Data? {
            get { storedBody?.data }
            set { storedBody = newValue.map(CassetteBody.init) }
        }
        var storedBody: CassetteBody?

        private enum CodingKeys: String, CodingKey {
            case method, url, headers
            case storedBody = "body"
        }
    }

    /// A recorded response.
    public struct Response: Codable, Sendable, Equatable {
        /// The status code.
        public var status: Int
        /// The reason phrase.
        public var reason: String?
        /// The header fields in order, `[name, value]`, credential values redacted.
        public var headers: [[String]]
        /// The whole body of a buffered response (in the file: UTF-8 text as it is, other bytes
        /// in base64).
        public var body: Data? {
            get { storedBody?.data }
            set { storedBody = newValue.map(CassetteBody.init) }
        }
        var storedBody: CassetteBody?
        /// The pieces of a streamed response, in order, as the adapter handed them over.
        public var chunks: [Chunk]?
        /// The HTTP version, when the adapter knew it.
        public var httpVersion: String?
        /// `true` when the recording call stopped reading the stream before its end (a retry
        /// discarded it, a loop left early): ``chunks`` hold what was read, and a replay that
        /// reads past them fails with ``FaradayError/Code/connectionFailed``.
        public var isTruncated: Bool?

        private enum CodingKeys: String, CodingKey {
            case status, reason, headers, chunks, httpVersion, isTruncated
            case storedBody = "body"
        }
    }

    /// One piece of a streamed response.
    public struct Chunk: Codable, Sendable, Equatable {
        /// Its bytes.
        public var body: Data {
            get { storedBody.data }
            set { storedBody = CassetteBody(newValue) }
        }
        var storedBody: CassetteBody
        /// The seconds between the previous piece (or the head) and this one.
        public var delay: Double

        init(body: Data, delay: Double) {
            self.storedBody = CassetteBody(body)
            self.delay = delay
        }

        private enum CodingKeys: String, CodingKey {
            case delay
            case storedBody = "body"
        }
    }
}

/// Bytes in a cassette file: UTF-8 text as it is, anything else in base64.
enum CassetteBody: Codable, Sendable, Equatable {
    case text(String)
    case base64(String)

    /// The body for `data`.
    init(_ data: Data) {
        if let text = String(data: data, encoding: .utf8), !text.contains("\u{0}") {
            self = .text(text)
        } else {
            self = .base64(data.base64EncodedString())
        }
    }

    /// The bytes.
    var data: Data {
        switch self {
        case .text(let text): Data(text.utf8)
        case .base64(let base64): Data(base64Encoded: base64) ?? Data()
        }
    }

    private enum CodingKeys: String, CodingKey { case text, base64 }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let text = try container.decodeIfPresent(String.self, forKey: .text) {
            self = .text(text)
        } else {
            let base64 = try container.decode(String.self, forKey: .base64)
            guard Data(base64Encoded: base64) != nil else {
                throw DecodingError.dataCorruptedError(forKey: .base64, in: container, debugDescription: "Not base64.")
            }
            self = .base64(base64)
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .text(let text): try container.encode(text, forKey: .text)
        case .base64(let base64): try container.encode(base64, forKey: .base64)
        }
    }
}
