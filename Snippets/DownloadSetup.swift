// Progress and downloads: observing a transfer, downloading to a file, resuming.
// snippet.hide
import Faraday
import Foundation

let connection = try Connection(url: "https://downloads.example.com")
let file = URL(fileURLWithPath: "/tmp/app.zip")
let report = Data()

// snippet.show

// snippet.sequence
let response = connection.get("releases/notes.pdf")
let watcher = Task {
    for await progress in response.downloadProgress {
        print("\(Int((progress.fractionCompleted ?? 0) * 100)) %  \(progress)")
    }
}
let env = try await response.value
await watcher.value  // the sequence ends with the call

// snippet.callbacks
let uploaded = try await connection.post("reports", body: .bytes(report))
    .onUploadProgress { print("sent \($0.completedBytes) of \($0.totalBytes ?? 0)") }
    .value

// snippet.download
let download = try await connection.download("releases/app.zip", to: file, resumeAttempts: 5)
    .onDownloadProgress { print($0) }
    .value
if let written = download.downloadedFile {
    print("\(written.length) bytes in \(written.url.path), resumed from \(written.resumedFrom)")
}
