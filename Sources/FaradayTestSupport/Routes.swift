import Foundation
import NIOCore
import NIOHTTP1

/// What the connection does after a response.
enum Next { case keepAlive, close }

/// The routes of ``TestServer``; see the list in `TestServer+Routes.md` terms below.
///
/// - `/download/<size>`: a file with ranges, validators and cuts (see `DownloadRoutes`).
/// - `/echo` (any method): JSON with the method, URI, path, query, headers in order, body and its
///   length; for HEAD, the headers as JSON in the `X-Received-Headers` response header.
/// - `/echo?next=URL`: the same, with `Link: <URL>; rel="next"` (a page of a collection).
/// - `/echo/body`: the request body back, verbatim; `/echo/<anything else>` as `/echo`.
/// - `/upload`: counts a streamed body without keeping it: `{"bytes":N,"fnv1a":H}`.
/// - `/multipart`: reads a `multipart/form-data` body as it streams and answers a summary of its
///   parts (headers, name, filename, length, whether the bytes follow the `/bytes` pattern, and
///   the content of parts up to 1 MiB); 400 with the same summary when the body is malformed.
/// - `/status/CODE`: that status (no body for 1xx, 204 and 304).
/// - `/delay/MS`: answers "ok" after MS milliseconds.
/// - `/headers`: multi-valued and case-variant response headers.
/// - `/chunked?count=N&size=S&interval=MS`: N chunks of S bytes (`i:` then `x`s), MS apart.
/// - `/bytes/N?length=1`: N bytes of the pattern `offset % 251`, chunked, or with Content-Length;
///   with `max-age=S`, `Cache-Control: max-age=S`.
/// - `/stall`: a head and one chunk, then nothing until the client goes away.
/// - `/drip?bytes=N&interval=MS`: N bytes, one every MS milliseconds.
/// - `/flaky?key=K&failures=N&status=S&retryAfter=R`: the first N requests with key K get status S
///   (503 by default, with `Retry-After: R` when given), the next `{"attempts":…,"bodies":[…]}`.
/// - `/redirect/CODE?to=LOCATION`: status CODE with `Location: LOCATION`, verbatim; with
///   `nolocation=1`, no `Location` at all.
/// - `/loop`: a 302 to itself.
/// - `/compressed?encoding=gzip|deflate|raw&size=N&zeros=1&chunked=1&truncate=1`: N bytes of the
///   `offset % 251` pattern (or zeros) compressed, with `Content-Encoding` (`raw` is sent as
///   `deflate` without the zlib wrapper); chunked in 1 KiB pieces, or cut short, on request.
/// - `/text?charset=LABEL`, `/xml/NAME` and `/fixture?name=…`: text in other encodings, XML
///   documents good and hostile, and the reference tools' Brotli and zstd bodies (see `TextRoutes`).
/// - `/heartbeat?interval=MS&limit=N`: one chunk `{"date":"…","count":n}` and a newline every MS
///   milliseconds, N of them (the heartbeat endpoint of the original Swift Faraday tests).
/// - `/events?perConnection=N&total=T`: server-sent events with ids 1…T and `retry: 10`, starting
///   after the request's `Last-Event-ID`, closing the connection after N events (to make the
///   client reconnect) and answering 204 once all T were sent.
/// - `/ndjson?bytes=N&size=S&array=1`: newline-delimited JSON records of S bytes (128 by default),
///   `{"n":…,"pad":"…"}`, N bytes in all (rounded down to whole records), in chunks of 512
///   records; with `array=1`, one JSON array of them.
/// - `POST /login`: sets a `session` cookie (and a `theme` cookie with an `Expires` date).
/// - `/session`: the request's `Cookie` header back, 401 without a `session` cookie, 400 when the
///   request has more than one `Cookie` header.
/// - `/protected`: 200 for `Authorization: Bearer fresh-token`, else 401 with `WWW-Authenticate`.
/// - `POST /oauth/token`: a new token, `{"access_token":"fresh-token","expires_in":3600}`.
/// - `/hal/…`: a small HAL API (see `HALRoutes`).
/// - `/challenge/…`, `/cookies/set`: authentication challenges and `Set-Cookie` fields as
///   production servers send them (see `ServerLikeRoutes`).
/// - `/fault/reset-before-head`, `/fault/reset-mid-body`, `/fault/truncated-chunked`,
///   `/fault/short-body`, `/fault/garbage`, `/fault/invalid-status`, `/fault/never`,
///   `/fault/huge-header` (1 MiB), `/fault/non-utf8-header` (Latin-1 and invalid bytes, then a
///   valid "ok" body), `/fault/long-body` (`Content-Length: 5` and 13 bytes, then the connection closes).
enum Routes {
    static func respond(to request: ServerRequest, with writer: ResponseWriter) async throws -> Next {
        let segments = request.path.split(separator: "/").map(String.init)
        switch (segments.first ?? "", segments.dropFirst().first) {
        case ("echo", nil): return try await echo(request, writer)
        case ("echo", "body"?):
            try await writer.respond(200, headers: [("content-type", "application/octet-stream")], body: request.body)
        case ("echo", _?): return try await echo(request, writer)
        case ("upload", nil):
            try await writer.respond(
                200,
                headers: [("content-type", "application/json")],
                text: #"{"bytes":\#(request.bodyLength),"fnv1a":"\#(String(request.bodyHash, radix: 16))"}"#
            )
        case ("flaky", nil):
            let bodies = writer.counters.flaky(
                request.query["key"] ?? "",
                body: String(decoding: request.body.readableBytesView, as: UTF8.self)
            )
            if bodies.count <= request.int("failures", default: 2) {
                var headers = [("content-type", "text/plain")]
                if let retryAfter = request.query["retryAfter"] { headers.append(("retry-after", retryAfter)) }
                try await writer.respond(
                    request.int("status", default: 503),
                    headers: headers,
                    text: "failure \(bodies.count)"
                )
            } else {
                let reply = try JSONSerialization.data(withJSONObject: ["attempts": bodies.count, "bodies": bodies])
                try await writer.respond(
                    200,
                    headers: [("content-type", "application/json")],
                    body: ByteBuffer(bytes: reply)
                )
            }
        case ("redirect", let code?):
            // `nolocation=1`: the status alone, as a server may send it (a 300's list of choices,
            // a 304-like answer from a misconfigured proxy).
            let location = request.query["nolocation"] == "1" ? [] : [("location", request.query["to"] ?? "/echo")]
            try await writer.respond(Int(code) ?? 302, headers: location, text: "redirecting")
        case ("loop", nil):
            try await writer.respond(302, headers: [("location", "/loop")], text: "again")
        case ("compressed", nil):
            let format = Compressor.Format(rawValue: request.query["encoding"] ?? "gzip") ?? .gzip
            let zeros = request.query["zeros"] == "1"
            var body = Compressor.compress(count: request.int("size", default: 1000), format: format) {
                zeros ? 0 : UInt8($0 % 251)
            }
            if request.query["truncate"] == "1" { body = body.prefix(body.count / 2) }
            let headers = [
                ("content-type", "application/octet-stream"),
                ("content-encoding", format == .gzip ? "gzip" : "deflate"),
            ]
            if request.query["chunked"] == "1" {
                try await writer.head(200, headers: headers, contentLength: nil)
                for offset in stride(from: 0, to: body.count, by: 1024) {
                    try await writer.chunk(ByteBuffer(bytes: body.dropFirst(offset).prefix(1024)))
                }
                try await writer.endChunks()
            } else {
                try await writer.respond(200, headers: headers, body: ByteBuffer(bytes: body))
            }
        case ("ndjson", nil):
            // `array=1`: the same records as one JSON array (`[`, records joined by `,`, `]`).
            let isArray = request.query["array"] == "1"
            let type = isArray ? "application/json" : "application/x-ndjson"
            try await writer.head(200, headers: [("content-type", type)], contentLength: nil)
            let size = max(32, request.int("size", default: 128))
            let records = request.int("bytes", default: 1 << 20) / size
            var n = 0
            if isArray { try await writer.chunk(ByteBuffer(string: "[")) }
            while n < records {
                var buffer = ByteBuffer()
                for _ in 0..<min(512, records - n) {
                    let head = #"{"n":\#(n),"pad":""#
                    let end = isArray ? (n == records - 1 ? "\"}]" : "\"},") : "\"}\n"
                    buffer.writeString(head + String(repeating: "x", count: size - head.utf8.count - 3) + end)
                    n += 1
                }
                try await writer.chunk(buffer)
            }
            if isArray && records == 0 { try await writer.chunk(ByteBuffer(string: "]")) }
            try await writer.endChunks()
        case ("heartbeat", nil):
            try await writer.head(200, headers: [("content-type", "application/x-ndjson")], contentLength: nil)
            let formatter = ISO8601DateFormatter()
            for count in 1...max(1, request.int("limit", default: 10)) {
                if count > 1 { try await Task.sleep(for: .milliseconds(request.int("interval", default: 100))) }
                try await writer.chunk(
                    ByteBuffer(string: #"{"date":"\#(formatter.string(from: Date()))","count":\#(count)}"# + "\n")
                )
            }
            try await writer.endChunks()
        case ("events", nil):
            let last = Int(request.head.headers.first(name: "last-event-id") ?? "") ?? 0
            let total = request.int("total", default: 5)
            guard last < total else {
                try await writer.head(204, contentLength: 0)
                return .keepAlive
            }
            try await writer.head(200, headers: [("content-type", "text/event-stream")], contentLength: nil)
            try await writer.chunk(ByteBuffer(string: "retry: 10\n: stream opened\n\n"))
            for id in (last + 1)...min(total, last + request.int("perConnection", default: 2)) {
                try await writer.chunk(ByteBuffer(string: "id: \(id)\nevent: tick\ndata: event \(id)\n\n"))
            }
            try await writer.endChunks()
            return .close
        case ("login", nil):
            try await writer.respond(
                200,
                headers: [
                    (
                        "set-cookie",
                        "session=s-\(request.head.headers.first(name: "x-user") ?? "anon"); Path=/; HttpOnly"
                    ),
                    ("set-cookie", "theme=dark; Expires=Wed, 21 Oct 2065 07:28:00 GMT; Path=/"),
                ],
                text: "welcome"
            )
        case ("session", nil):
            // HTTP/1.1 clients send one Cookie header (RFC 6265 §5.4), its cookies joined by "; ".
            let cookieHeaders = request.head.headers["cookie"]
            let cookie = cookieHeaders.first ?? ""
            if cookieHeaders.count > 1 {
                try await writer.respond(400, text: "\(cookieHeaders.count) Cookie headers: \(cookieHeaders)")
            } else if cookie.contains("session=") {
                try await writer.respond(200, text: cookie)
            } else {
                try await writer.respond(401, text: "no session")
            }
        case ("protected", nil):
            if request.head.headers.first(name: "authorization") == "Bearer fresh-token" {
                try await writer.respond(200, text: "secret data")
            } else {
                try await writer.respond(
                    401,
                    headers: [("www-authenticate", "Bearer error=\"invalid_token\"")],
                    text: "expired"
                )
            }
        case ("oauth", "token"?):
            try await writer.respond(
                200,
                headers: [("content-type", "application/json")],
                text: #"{"access_token":"fresh-token","expires_in":3600}"#
            )
        case ("multipart", nil):
            let summary =
                request.multipart ?? MultipartReader.Summary(error: "not a multipart/form-data request with a boundary")
            try await writer.respond(
                summary.error == nil ? 200 : 400,
                headers: [("content-type", "application/json")],
                body: ByteBuffer(bytes: try JSONEncoder().encode(summary))
            )
        case ("status", let code?):
            let status = Int(code) ?? 400
            if status == 204 || status == 304 || (100..<200).contains(status) {
                try await writer.head(status, contentLength: 0)
            } else {
                var headers = [("content-type", "text/plain")]
                if (300..<400).contains(status) { headers.append(("location", "/echo")) }
                try await writer.respond(status, headers: headers, text: "status \(status)")
            }
        case ("delay", let milliseconds?):
            try await Task.sleep(for: .milliseconds(Int(milliseconds) ?? 0))
            try await writer.respond(200, text: "ok")
        case ("headers", nil):
            try await writer.respond(
                200,
                headers: [("X-Multi", "a"), ("x-multi", "b"), ("X-Case", "Upper"), ("x-lower", "lower")],
                text: "headers"
            )
        case ("chunked", nil): try await chunked(request, writer)
        case ("bytes", let count?):
            let caching = request.query["max-age"].map { [("cache-control", "max-age=\($0)")] } ?? []
            try await bytes(Int(count) ?? 0, withLength: request.query["length"] == "1", headers: caching, writer)
        case ("stall", nil):
            try await writer.head(200, contentLength: nil)
            try await writer.chunk(ByteBuffer(string: "first"))
            try await Task.sleep(for: .seconds(3600))
        case ("drip", nil):
            let count = request.int("bytes", default: 5)
            try await writer.head(200, contentLength: count)
            for _ in 0..<count {
                try await Task.sleep(for: .milliseconds(request.int("interval", default: 1000)))
                try await writer.body(ByteBuffer(string: "."))
            }
        case ("fault", let kind?): return try await FaultRoutes.fault(kind, writer)
        case ("challenge", let scheme?): try await ServerLikeRoutes.challenge(scheme, request, writer)
        case ("cookies", "set"?): try await ServerLikeRoutes.cookies(writer)
        case ("http10", nil): return try await ServerLikeRoutes.http10(writer)
        case ("brotli", nil): try await ServerLikeRoutes.encoded("br", ServerLikeRoutes.brotliBody, writer)
        case ("zstd", nil): try await ServerLikeRoutes.encoded("zstd", ServerLikeRoutes.zstdBody, writer)
        case ("cached", nil): try await ServerLikeRoutes.cached(request, writer)
        case ("text", nil): try await TextRoutes.text(request, writer)
        case ("xml", let name?): try await TextRoutes.xml(name, writer)
        case ("fixture", nil): try await TextRoutes.fixture(request, writer)
        case ("download", let size?): return try await DownloadRoutes.download(Int(size) ?? 0, request, writer)
        case ("hal", _): try await HALRoutes.respond(to: request, with: writer)
        default:
            try await writer.respond(404, text: "no route for \(request.path)")
        }
        return .keepAlive
    }

    private struct EchoReply: Encodable {
        let method: String
        let uri: String
        let path: String
        let query: [String: String]
        let headers: [[String]]
        let body: String
        let bodyLength: Int
    }

    private static func echo(_ request: ServerRequest, _ writer: ResponseWriter) async throws -> Next {
        let reply = EchoReply(
            method: request.head.method.rawValue,
            uri: request.head.uri,
            path: request.path,
            query: request.query,
            headers: request.head.headers.map { [$0.name, $0.value] },
            body: String(decoding: request.body.readableBytesView, as: UTF8.self),
            bodyLength: request.bodyLength
        )
        let json = try JSONEncoder().encode(reply)
        var headers = [("content-type", "application/json")]
        // `?next=URL`: a page of a collection, linking to the next as GitHub's API does.
        if let next = request.query["next"] { headers.append(("link", "<\(next)>; rel=\"next\"")) }
        if request.head.method == .HEAD {
            // The headers again as a response header: the answer to a HEAD request has no body.
            headers.append(
                ("x-received-headers", String(decoding: try JSONEncoder().encode(reply.headers), as: UTF8.self))
            )
        }
        try await writer.respond(200, headers: headers, body: ByteBuffer(bytes: json))
        return .keepAlive
    }

    private static func chunked(_ request: ServerRequest, _ writer: ResponseWriter) async throws {
        let count = request.int("count", default: 3)
        let size = max(request.int("size", default: 16), 8)
        let interval = request.int("interval", default: 0)
        try await writer.head(200, headers: [("content-type", "text/plain")], contentLength: nil)
        for index in 0..<count {
            if interval > 0 && index > 0 { try await Task.sleep(for: .milliseconds(interval)) }
            let label = "\(index):"
            try await writer.chunk(
                ByteBuffer(string: label + String(repeating: "x", count: max(0, size - label.count)))
            )
        }
        try await writer.endChunks()
    }

    /// A block of the byte pattern whose length is a multiple of 251, so every block is the same.
    static let patternBlock: ByteBuffer = {
        var buffer = ByteBuffer()
        for index in 0..<(251 * 261) { buffer.writeInteger(UInt8(index % 251)) }
        return buffer
    }()

    /// ``patternBlock`` as `Data`.
    static let patternBytes = Data(patternBlock.readableBytesView)

    private static func bytes(
        _ count: Int,
        withLength: Bool,
        headers: [(String, String)] = [],
        _ writer: ResponseWriter
    ) async throws {
        try await writer.head(
            200,
            headers: [("content-type", "application/octet-stream")] + headers,
            contentLength: withLength ? count : nil
        )
        var remaining = count
        while remaining > 0 {
            let block = patternBlock.getSlice(at: 0, length: min(remaining, patternBlock.readableBytes)) ?? ByteBuffer()
            if withLength { try await writer.body(block) } else { try await writer.chunk(block) }
            remaining -= block.readableBytes
        }
        if !withLength { try await writer.endChunks() }
    }
}
