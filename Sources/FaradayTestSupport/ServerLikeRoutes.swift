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
///   max-age=600`, an `ETag` and a `Last-Modified` date (a client cache would answer the second).
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

    static func cached(_ request: ServerRequest, _ writer: ResponseWriter) async throws {
        let count = writer.counters.flaky("cached-" + (request.query["key"] ?? ""), body: "").count
        try await writer.respond(
            200,
            headers: [
                ("cache-control", "public, max-age=600"), ("etag", #""v1""#),
                ("last-modified", "Wed, 21 Oct 2015 07:28:00 GMT"),
            ],
            text: "request \(count)"
        )
    }

    static func cookies(_ writer: ResponseWriter) async throws {
        try await writer.respond(200, headers: setCookies.map { ("set-cookie", $0) }, text: "cookies set")
    }
}
