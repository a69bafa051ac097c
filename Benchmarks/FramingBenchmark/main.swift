// An unterminated line dripped one byte a chunk into a framer, as a hostile or stalled server
// sends it: the work must grow with the line's length, not with its square.
//
//     swift run -c release FramingBenchmark [bytes] [lines|sse|json-seq]
//
// Prints the time; the Benchmarks README records the 1 MiB time (issue 44 compared 64 KiB to
// 1 MiB under `/usr/bin/time`: each doubling should double the work, not quadruple it).
import Faraday
import Foundation

let arguments = CommandLine.arguments
let bytes = arguments.count > 1 ? Int(arguments[1]) ?? 1 << 20 : 1 << 20
let kind = arguments.count > 2 ? arguments[2] : "lines"

var streaming: Streaming
let (open, close): (String, String)
switch kind {
case "sse": (streaming, open, close) = (.serverSentEvents, "data: ", "\n\n")
case "json-seq": (streaming, open, close) = (.jsonSequence, "\u{1E}", "\u{1E}")
default: (streaming, open, close) = (.lines, "", "\n")
}
streaming.maxFrameSize = bytes + 64
var framer = streaming.makeFramer()
let byte = Data("x".utf8)
let started = ContinuousClock.now
var frames = try framer.frames(from: Data(open.utf8))
for _ in 0..<bytes { frames += try framer.frames(from: byte) }
frames += try framer.frames(from: Data(close.utf8))
frames += try framer.finish()
let elapsed = ContinuousClock.now - started
guard frames.count == 1, frames[0].body.count == bytes else {
    print("unexpected frames: \(frames.map(\.body.count))")
    exit(1)
}
print("\(kind): \(bytes) bytes dripped one a chunk in \(elapsed)")
