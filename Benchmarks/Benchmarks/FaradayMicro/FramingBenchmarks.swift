import Benchmark
import Faraday
import Foundation

/// Cutting 1 MiB of a stream, fed in 16 KiB chunks, into lines and into server-sent events.
func framingBenchmarks() {
    let lines = stream(of: "{\"id\":12345,\"event\":\"update\",\"payload\":\"0123456789abcdef\"}\n")
    let events = stream(of: "event: update\nid: 12345\ndata: {\"payload\":\"0123456789abcdef\"}\n\n")

    for (name, streaming, chunks) in [
        ("lines", Streaming.lines, lines), ("NDJSON", Streaming.ndjson, lines),
        ("server-sent events", Streaming.serverSentEvents, events),
    ] {
        Benchmark("Framing/1 MiB of \(name)", configuration: .init(scalingFactor: .one)) { benchmark in
            for _ in benchmark.scaledIterations {
                var framer = streaming.makeFramer()
                var count = 0
                for chunk in chunks { count += try framer.frames(from: chunk).count }
                count += try framer.finish().count
                blackHole(count)
            }
        }
    }
}

/// 1 MiB of `record` repeated, cut into 16 KiB chunks regardless of where records end.
private func stream(of record: String) -> [Data] {
    var whole = Data()
    while whole.count < 1 << 20 { whole.append(contentsOf: record.utf8) }
    return stride(from: 0, to: whole.count, by: 1 << 14).map { whole[$0..<min($0 + (1 << 14), whole.count)] }
}
