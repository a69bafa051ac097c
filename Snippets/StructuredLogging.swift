// The JSON log handler of the Logging section of "Credentials, cookies and logs".
// snippet.hide
import Faraday
import Foundation
import Logging

// snippet.show

// snippet.jsonHandler
/// Writes each event as one JSON object per line, its metadata as fields.
struct JSONLogHandler: LogHandler {
    let label: String
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var object: [String: Any] = ["level": "\(event.level)", "label": label, "message": "\(event.message)"]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) {
            object[key] = Self.json(value)
        }
        let options: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes]
        guard let line = try? JSONSerialization.data(withJSONObject: object, options: options) else { return }
        FileHandle.standardOutput.write(line + Data("\n".utf8))
    }

    private static func json(_ value: Logger.MetadataValue) -> Any {
        switch value {
        case .string(let text): text
        case .stringConvertible(let value): value.description
        case .array(let values): values.map(json)
        case .dictionary(let values): values.mapValues(json)
        }
    }
}

// snippet.jsonLogging
LoggingSystem.bootstrap { label in JSONLogHandler(label: label) }

let logged = try Connection(url: "https://api.example.com") { builder in
    builder.use(HTTPLogger.Handler(logger: Logger(label: "api"), response: .url))
    builder.use(Retry.Handler(statuses: [503]))
    builder.adapter = URLSessionAdapter()
}
// snippet.hide
print(logged.handlers.count)
// snippet.end
