// Streaming: frames as completions, callbacks or a loop, stopping, and server-sent events.
// snippet.hide
import Faraday
import Foundation

let connection = try Connection(url: "https://api.example.com") { builder in
    builder.use(DecodeJSON.Handler())
    builder.adapter = URLSessionAdapter()
}
// snippet.show

// snippet.loop
var streaming = Streaming.ndjson
streaming.idleTimeout = .seconds(30)
for try await env in connection.get("feed", streaming: streaming).completions {
    if env.isFinal { break }
    print(env.json?["id"]?.int ?? 0)  // DecodeJSON decoded this frame
}

// snippet.callbacks
let heartbeat = connection.get("heartbeat", streaming: .lines)
    .onComplete { env in
        if env.isFinal {
            print("ended: \(env.error.map { "\($0.code)" } ?? "complete")")
        } else if env.response?.text == "stop" {
            env.cancel()  // the adapter stops reading; a final cancelled completion follows
        }
    }
_ = try? await heartbeat.value

// snippet.head
let download = connection.get("archive.tar", streaming: .chunks)
let head = try await download.head  // status and headers, before any byte of the body
print(head.responseHeaders[.contentLength] ?? "unknown length")
var received = 0
for try await env in download.completions where !env.isFinal {
    received += env.body.count
}

// snippet.events
var events = connection.eventSource("notifications")
events.reconnectionTime = .seconds(2)  // until the server's `retry:` says otherwise
for try await event in events {
    print(event.lastEventID, event.type, event.data)
}
// snippet.end
