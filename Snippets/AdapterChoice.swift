// Adapters: choosing one, configuring it, and writing your own.
// snippet.hide
import Faraday
import FaradayAsyncHTTPClient
import Foundation

// snippet.show

// snippet.choose
// Foundation's URLSession, on Apple platforms and Linux:
let simple = try Connection(url: "https://api.example.com") { $0.adapter = URLSessionAdapter() }

// AsyncHTTPClient on SwiftNIO (product FaradayAsyncHTTPClient): HTTP/2, backpressure, pinning on Linux.
var configuration = AsyncHTTPClientAdapter.Configuration()
configuration.connectTimeout = .seconds(5)
configuration.maximumConnectionsPerHost = 16
let adapter = AsyncHTTPClientAdapter(configuration: configuration)
let production = try Connection(url: "https://api.example.com") { $0.adapter = adapter }
// ... and when the program is done with it:
try await adapter.shutdown()

// snippet.perRequest
var options = RequestOptions()
options.timeout = .seconds(30)  // the whole call
options.readTimeout = .seconds(5)  // between two reads
let connection = try Connection(url: "https://api.example.com", options: options) { builder in
    builder.adapter = URLSessionAdapter()
}
let slow = connection.get("reports/2026") { $0.options.timeout = .seconds(120) }

// snippet.writing
/// Serves `GET` requests from files under `root`: a whole file when it is small, a stream of
/// 64 KiB pieces when the request asks for streaming.
struct FileAdapter: Adapter {
    let root: URL

    func call(_ env: Env) async throws(FaradayError) -> Completions {
        guard env.request.method == .get else {
            throw FaradayError(.unsupportedOption, "FileAdapter only reads.", method: env.request.method)
        }
        let file = root.appending(path: env.request.url.path)
        guard let handle = try? FileHandle(forReadingFrom: file) else {
            var missing = env
            missing.response = ResponseData(status: .notFound)
            return .buffered(missing)
        }
        var head = env
        head.response = ResponseData(status: .ok, headers: [.contentType: "application/octet-stream"])
        guard env.request.options.streaming != nil else {
            defer { try? handle.close() }
            let limit = env.request.options.maxBufferedBodySize
            let data: Data
            do {
                data = try handle.read(upToCount: limit + 1) ?? Data()
            } catch {
                throw FaradayError(.connectionFailed, "Reading \(file.path) failed: \(error)", underlying: error)
            }
            guard data.count <= limit else {
                throw FaradayError(.bodyTooLarge, "\(file.path) is larger than \(limit) bytes.")
            }
            head.response?.body = data
            return .buffered(head)
        }
        return .streamed(
            head: head,
            nextFrame: {
                guard let piece = try handle.read(upToCount: 65_536), !piece.isEmpty else {
                    try handle.close()
                    return nil
                }
                return piece
            },
            cancelTransfer: { try? handle.close() },
            mapError: { FaradayError(.unknown, "Reading failed: \($0)", underlying: $0) }
        )
    }
}

let files = try Connection(url: "https://files.local") { $0.adapter = FileAdapter(root: URL(filePath: "/srv")) }
_ = try await files.get("docs/readme.txt").value
// snippet.end
