// Transfer progress and downloads to a file with Faraday: a download cut halfway that resumes
// with a range, one that failed and is picked up by the next call, and an upload's progress. Runs
// against a local server whose `/download/<size>` route serves ranges as nginx does.
//
//     swift run Download
import Faraday
import FaradayTestSupport
import Foundation

let server = try await TestServer.start()
let connection = try Connection(url: server.baseURL.absoluteString)
let folder = FileManager.default.temporaryDirectory.appending(path: "faraday-download-example-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: folder) }
let file = folder.appending(path: "archive.bin")

/// Prints a progress bar line for every tenth of the way, until the transfer ends.
func showProgress(_ progress: AsyncStream<TransferProgress>, _ label: String) -> Task<Void, Never> {
    Task {
        var printed = -1
        for await value in progress {
            guard let fraction = value.fractionCompleted, Int(fraction * 10) > printed else { continue }
            printed = Int(fraction * 10)
            let bar = String(repeating: "#", count: printed) + String(repeating: ".", count: 10 - printed)
            print("  \(label) [\(bar)] \(value)")
        }
    }
}

// 1. The server cuts the connection after 4 MB of 10: the download resumes with `Range` and
//    `If-Range` in the same call, and the progress carries on from where the file stopped.
print("A download cut halfway:")
let download = connection.download("download/10000000?cut=4000000&key=first", to: file)
let downloadBar = showProgress(download.downloadProgress, "download")
let env = try await download.value
await downloadBar.value
if let downloaded = env.downloadedFile {
    print(
        "  \(env.status.map { "\($0.code)" } ?? "-"): \(downloaded.length) bytes, resumed from \(downloaded.resumedFrom)"
    )
}
print("  the server saw: \(server.downloadRequests(key: "first"))")

// 2. Without resume attempts, a cut fails the call and leaves `archive.bin.part` (a cancelled
//    download does too); the next call to the same file from the same URL resumes it.
print("A download that failed, resumed by the next call:")
let path = "download/10000000?cut=3000000&key=second"
do {
    _ = try await connection.download(path, to: file, resumeAttempts: 0).value
} catch {
    print("  first call: \(error.code)")
}
let resumed = try await connection.download(path, to: file).value
print("  second call: resumed from \(resumed.downloadedFile?.resumedFrom ?? [])")

// 3. An upload's progress, for a body streamed from memory in 1 MiB pieces.
print("An upload:")
let piece = Data(repeating: 0x2A, count: 1 << 20)
let upload = connection.post(
    "upload",
    body: .stream(length: 8 << 20) {
        AsyncStream<Data> { continuation in
            for _ in 0..<8 { continuation.yield(piece) }
            continuation.finish()
        }
    }
)
let uploadBar = showProgress(upload.uploadProgress, "upload")
let uploaded = try await upload.value
await uploadBar.value
print("  the server counted: \(uploaded.response?.text ?? "")")

try await server.shutdown()
