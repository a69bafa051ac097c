import Foundation
import NIOCore
import NIOHTTP1

/// Answers as production servers do where clients most often go wrong: authentication
/// challenges (nginx's `auth_basic`, Apache's `mod_auth_digest`, a Kerberos front end, a proxy),
/// and several `Set-Cookie` fields with every date format RFC 6265 reads.
///
/// - `/challenge/basic`: 401 with `WWW-Authenticate: Basic realm="faraday", charset="UTF-8"` and
///   a JSON error document, unless the request has `Authorization: Basic dXNlcjpwYXNz`
///   (`user:pass`), which gets 200 "welcome".
/// - `/challenge/digest`: 401 with a `WWW-Authenticate: Digest …` challenge.
/// - `/challenge/negotiate`: 401 with `WWW-Authenticate: Negotiate`.
/// - `/challenge/proxy`: 407 with `Proxy-Authenticate: Basic realm="proxy"`.
/// - `/cached?key=K`: a body that counts the requests with key K, with `Cache-Control: public,
///   max-age=600` (or `max-age=N` from the query), `ETag: "v1"`, a `Last-Modified` date and a
///   `Date`; `304 Not Modified` to `If-None-Match: "v1"` or to the same `If-Modified-Since`;
///   with `vary=NAME`, `Vary: NAME` and the request's value of NAME in the body; with `etag=no`,
///   no `ETag`.
/// - `/http10`: answers as an HTTP/1.0 server does (Python's `http.server`): an `HTTP/1.0` status
///   line, `Content-Length`, and the connection closed after the body "ok".
/// - `/brotli`: `{"hello":"brotli"}` with `Content-Encoding: br`, as a CDN answers a client that
///   asks for Brotli (the bytes made once by the `brotli` tool; 22 bytes, `Content-Length: 22`).
/// - `/zstd`: `{"hello":"zstd"}` with `Content-Encoding: zstd`, likewise (made once by `zstd -19`;
///   29 bytes).
/// - `/cookies/set`: five `Set-Cookie` fields: `fixdate`, `rfc850`, `asctime` and `dashed` live
///   until 2065 (one date format each), and `gone` is deleted (`Expires` in 1970, `Max-Age=0`).
package enum ServerLikeRoutes {
    static let basicCredentials = "Basic dXNlcjpwYXNz"

    static func challenge(_ scheme: String, _ request: ServerRequest, _ writer: ResponseWriter) async throws {
        let document = [("content-type", "application/json")]
        let error = #"{"error":"unauthorized","message":"credentials required"}"#
        switch scheme {
        case "basic":
            if request.head.headers.first(name: "authorization") == basicCredentials {
                try await writer.respond(200, text: "welcome")
            } else {
                try await writer.respond(
                    401,
                    headers: document + [("www-authenticate", #"Basic realm="faraday", charset="UTF-8""#)],
                    text: error
                )
            }
        case "digest":
            try await writer.respond(
                401,
                headers: document + [
                    (
                        "www-authenticate",
                        #"Digest realm="faraday@example.com", qop="auth", algorithm=MD5, nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque="5ccc069c403ebaf9f0171e9517f40e41""#
                    )
                ],
                text: error
            )
        case "negotiate":
            try await writer.respond(401, headers: document + [("www-authenticate", "Negotiate")], text: error)
        case "proxy":
            try await writer.respond(
                407,
                headers: document + [("proxy-authenticate", #"Basic realm="proxy""#)],
                text: error
            )
        default:
            try await writer.respond(404, text: "no challenge \(scheme)")
        }
    }

    /// The `Set-Cookie` fields of `/cookies/set`, in order.
    package static let setCookies = [
        "fixdate=1; Path=/; Expires=Wed, 21 Oct 2065 07:28:00 GMT",
        "rfc850=2; Path=/; Expires=Wednesday, 21-Oct-65 07:28:00 GMT",
        "asctime=3; Path=/; Expires=Wed Oct 21 07:28:00 2065",
        "dashed=4; Path=/; Expires=Wed, 21-Oct-2065 07:28:00 GMT; HttpOnly",
        "gone=; Path=/; Expires=Thu, 01-Jan-1970 00:00:00 GMT; Max-Age=0",
    ]

    /// `date` as an IMF-fixdate, as servers write `Date`.
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    static func cached(_ request: ServerRequest, _ writer: ResponseWriter) async throws {
        let headers = request.head.headers
        let lastModified = "Wed, 21 Oct 2015 07:28:00 GMT"
        // As nginx answers a static file: 304 to a matching If-None-Match (or, without one, a
        // matching If-Modified-Since), with the validators and caching fields again.
        let isNotModified =
            headers.first(name: "if-none-match") == nil
            ? headers.first(name: "if-modified-since") == lastModified
            : headers.first(name: "if-none-match") == #""v1""#
        let key = "cached-" + (request.query["key"] ?? "")
        let count = writer.counters.flaky(key, body: isNotModified ? "304" : "200").count
        var fields = [
            ("cache-control", "public, max-age=\(request.query["max-age"] ?? "600")"),
            ("last-modified", lastModified), ("date", httpDate(Date())),
        ]
        if request.query["etag"] != "no" { fields.append(("etag", #""v1""#)) }
        var text = "request \(count)"
        if let vary = request.query["vary"] {
            fields.append(("vary", vary))
            text += " for \(headers.first(name: vary) ?? "-")"
        }
        if isNotModified {
            try await writer.head(304, headers: fields, contentLength: 0)
        } else {
            try await writer.respond(200, headers: fields, text: text)
        }
    }

    static func http10(_ writer: ResponseWriter) async throws -> Next {
        try await writer.raw(
            "HTTP/1.0 200 OK\r\nServer: SimpleHTTP/0.6 Python/3.11.2\r\ncontent-type: text/plain\r\n"
                + "content-length: 2\r\n\r\nok"
        )
        return .close
    }

    /// `{"hello":"brotli"}`, Brotli-encoded.
    package static let brotliBody: [UInt8] = [
        0x8f, 0x08, 0x80, 0x7b, 0x22, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x22, 0x3a,
        0x22, 0x62, 0x72, 0x6f, 0x74, 0x6c, 0x69, 0x22, 0x7d, 0x03,
    ]

    /// `{"hello":"zstd"}`, zstd-encoded: one frame, which starts with zstd's magic number.
    package static let zstdBody: [UInt8] = [
        0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x68, 0x81, 0x00, 0x00, 0x7b, 0x22, 0x68,
        0x65, 0x6c, 0x6c, 0x6f, 0x22, 0x3a, 0x22, 0x7a, 0x73, 0x74, 0x64, 0x22,
        0x7d, 0xc6, 0x45, 0x0e, 0x8e,
    ]

    /// A JSON document sent with `Content-Encoding: encoding`, as `body` gives it.
    static func encoded(_ encoding: String, _ body: [UInt8], _ writer: ResponseWriter) async throws {
        try await writer.respond(
            200,
            headers: [("content-type", "application/json"), ("content-encoding", encoding)],
            body: ByteBuffer(bytes: body)
        )
    }

    static func cookies(_ writer: ResponseWriter) async throws {
        try await writer.respond(200, headers: setCookies.map { ("set-cookie", $0) }, text: "cookies set")
    }
}
