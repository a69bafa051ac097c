// Signing requests: a middleware from a library target (RequestSigningMiddleware, all public)
// signs the body bytes that go on the wire, whether it sits above or below the JSON encoder.
// The local server echoes what it received, and the program verifies the signature as a server
// would.
//
//     swift run RequestSigning
import Crypto
import Faraday
import FaradayTestSupport
import Foundation
import RequestSigningMiddleware

struct Order: Encodable, Sendable {
    let itemID: Int
    let placedAt: Date
}

let secret = Data("a shared secret".utf8)
let server = try await TestServer.start()
let encoder = JSONEncoder()
encoder.keyEncodingStrategy = .convertToSnakeCase
encoder.dateEncodingStrategy = .iso8601
encoder.outputFormatting = .sortedKeys

var failures = 0
for signerAboveEncoder in [true, false] {
    let connection = try Connection(url: server.baseURL.absoluteString) { builder in
        let signer = HMACSigning.Handler(keyID: "client-1", secret: secret)
        let encoding = EncodeJSON.Handler(encoder: encoder)
        builder.use(signerAboveEncoder ? signer : encoding)
        builder.use(signerAboveEncoder ? encoding : signer)
        builder.use(RaiseError.Handler())
    }
    let order = Order(itemID: 42, placedAt: Date(timeIntervalSince1970: 1_700_000_000))
    let echo = try await connection.post("echo", params: ["dry_run": "1"], body: .json(order)).decode(Echo.self)

    // What a server does: recompute the signature from the bytes it received.
    let received = Data(echo.body.utf8)
    let expected = HMACSigning.signature(
        method: echo.method,
        target: echo.uri,
        body: received,
        key: SymmetricKey(data: secret)
    )
    let sent = echo.value("signature") ?? "none"
    let verified =
        sent.contains("signature=\"\(expected)\"")
        && echo.value("content-digest") == HMACSigning.contentDigest(of: received)
    if !verified { failures += 1 }
    print("signer \(signerAboveEncoder ? "above" : "below") EncodeJSON: the server received \(echo.body)")
    print("    Signature: \(sent)")
    print("    \(verified ? "verified: the signed bytes are the bytes on the wire" : "NOT VERIFIED")")
}
try await server.shutdown()
if failures > 0 { exit(1) }
