// Consuming streams with Faraday: a heartbeat of NDJSON chunks, stopped from a callback, and a
// server-sent event stream that reconnects with Last-Event-ID. Runs against a local server.
//
//     swift run StreamingExample
import Faraday
import FaradayTestSupport
import Foundation

let server = try await TestServer.start()
let connection = try Connection(url: server.baseURL.absoluteString) { builder in
    builder.use(DecodeJSON.Handler())
    builder.adapter = URLSessionAdapter()
}

// 1. A heartbeat: one JSON object per chunk; the callback stops the stream at count 3.
print("Heartbeat:")
let heartbeat = connection.get("heartbeat?interval=200&limit=10", streaming: .ndjson)
    .onComplete { env in
        if env.isFinal {
            print("  ended: \(env.error.map { "\($0.code)" } ?? "complete")")
        } else if let count = env.json?["count"]?.int {
            print("  beat \(count) at \(env.json?["date"]?.string ?? "?")")
            if count == 3 { env.cancel() }
        }
    }
_ = try? await heartbeat.value

// 2. Server-sent events: the server closes after every two events; the stream picks up where it left.
print("Server-sent events:")
var events = connection.eventSource("events?perConnection=2&total=5")
events.reconnectionTime = .milliseconds(100)
for try await event in events {
    print("  #\(event.lastEventID) \(event.type): \(event.data)")
}
print("  the server said there is no more (204)")

try await server.shutdown()
