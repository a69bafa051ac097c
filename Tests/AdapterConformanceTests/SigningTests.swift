import Crypto
import Faraday
import FaradayTestSupport
import Foundation
import RequestSigningMiddleware
import Testing

extension AdapterConformance {
    /// The signing middleware of the RequestSigning example, above and below EncodeJSON, on each
    /// adapter: the server recomputes the signature from the bytes it received.
    @Suite(.timeLimit(.minutes(1))) struct SigningTests {
        private struct Order: Encodable, Sendable {
            let itemID: Int
            let note: String
        }

        @Test(arguments: AdapterKind.allCases, [true, false])
        func theSignedBytesAreTheBytesTheServerReceives(_ kind: AdapterKind, _ signerAbove: Bool) async throws {
            let secret = Data("secret".utf8)
            let encoder = JSONEncoder()
            encoder.keyEncodingStrategy = .convertToSnakeCase
            encoder.outputFormatting = .sortedKeys
            let signer = HMACSigning.Handler(keyID: "k1", secret: secret)
            let encoding = EncodeJSON.Handler(encoder: encoder)
            let handlers: [any Handler] = signerAbove ? [signer, encoding] : [encoding, signer]
            try await withConnection(kind, handlers: handlers) { connection, _ in
                let echo = try await connection.post(
                    "echo",
                    params: ["q": "a b"],
                    body: .json(Order(itemID: 7, note: "é"))
                ).decode(Echo.self)
                let received = Data(echo.body.utf8)
                #expect(echo.body == #"{"item_id":7,"note":"é"}"#)
                let expected = HMACSigning.signature(
                    method: "POST",
                    target: echo.uri,
                    body: received,
                    key: SymmetricKey(data: secret)
                )
                #expect(echo.value("signature") == #"keyId="k1",signature="\#(expected)""#)
                #expect(echo.value("content-digest") == HMACSigning.contentDigest(of: received))
                #expect(echo.value("content-type") == "application/json")
            }
        }
    }
}
