import Foundation
import NIOCore
import NIOHTTP1

/// `/download/<size>`: a file of the byte pattern served as nginx serves a static file, with
/// ranges (see `Routes`).
///
/// Answers `Accept-Ranges: bytes`, `ETag: "<version>-<size>"`, `Last-Modified` and `Date`; a
/// `Range: bytes=S-` whose `If-Range` matches the ETag or the date (or that has none) gets 206
/// with `Content-Range`, one past the end 416 with `Content-Range: bytes */<size>`, a mismatched
/// `If-Range` the whole file. Query: `key` names the requests for ``TestServer/downloadRequests(key:)``;
/// `cut=N` closes the connection after N bytes of the first `cuts` (default 1) answers for
/// that key, a body shorter than its `Content-Length`; `version` changes the ETag (the file changed),
/// and so does `changes=1` after the first answer for the key; `if-range=ignore` serves a range
/// whatever `If-Range` says, as a broken cache might; `ranges=no` ignores `Range`, as a
/// server without range support does; `etag=no` leaves the ETag out.
enum DownloadRoutes {
    static let lastModified = "Wed, 21 Oct 2015 07:28:00 GMT"

    static func download(_ size: Int, _ request: ServerRequest, _ writer: ResponseWriter) async throws -> Next {
        let size = max(0, size)
        let headers = request.head.headers
        let range = headers.first(name: "range")
        let answered = writer.counters.flaky("download-" + (request.query["key"] ?? ""), body: range ?? "whole").count
        let version = request.query["changes"] == "1" && answered > 1 ? "v2" : request.query["version"] ?? "v1"
        let etag = #""\#(version)-\#(size)""#
        var fields = [
            ("content-type", "application/octet-stream"), ("last-modified", lastModified),
            ("date", ServerLikeRoutes.httpDate(Date())),
        ]
        if request.query["etag"] != "no" { fields.append(("etag", etag)) }
        var start = 0
        if request.query["ranges"] != "no" {
            fields.append(("accept-ranges", "bytes"))
            let ifRange = headers.first(name: "if-range")
            let honoursIfRange = request.query["if-range"] != "ignore"
            if let range, ifRange == nil || ifRange == etag || ifRange == lastModified || !honoursIfRange,
                range.hasPrefix("bytes="), range.hasSuffix("-"),
                let first = Int(range.dropFirst(6).dropLast()), first >= 0
            {
                guard first < size else {
                    try await writer.head(
                        416,
                        headers: fields + [("content-range", "bytes */\(size)")],
                        contentLength: 0
                    )
                    return .keepAlive
                }
                start = first
                fields.append(("content-range", "bytes \(first)-\(size - 1)/\(size)"))
            }
        }
        if start == 0 { fields.removeAll { $0.0 == "content-range" } }
        try await writer.head(start > 0 ? 206 : 200, headers: fields, contentLength: size - start)
        let cut = answered <= request.int("cuts", default: 1) ? request.query["cut"].flatMap(Int.init) : nil
        var offset = start
        while offset < size {
            var length = min(size - offset, 64 << 10)
            if let cut, offset < start + cut { length = min(length, start + cut - offset) }
            try await writer.body(pattern(from: offset, length: length))
            offset += length
            if let cut, offset == start + cut { return .close }
        }
        return .keepAlive
    }

    /// `length` bytes of the pattern (`offset % 251`) from `offset`.
    private static func pattern(from offset: Int, length: Int) -> ByteBuffer {
        var buffer = ByteBuffer()
        var remaining = length
        var position = offset % 251
        while remaining > 0 {
            let piece = min(remaining, Routes.patternBlock.readableBytes - position)
            buffer.writeImmutableBuffer(Routes.patternBlock.getSlice(at: position, length: piece) ?? ByteBuffer())
            remaining -= piece
            position = 0
        }
        return buffer
    }
}
