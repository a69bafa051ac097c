import Faraday
import FaradayTestSupport
import Foundation
import Testing

extension AdapterConformance {
    /// Text served in its declared charset, as a server in Japan or Russia sends it, read the same
    /// through every adapter.
    @Suite(.timeLimit(.minutes(2))) struct TextTests {
        @Test(arguments: AdapterKind.allCases)
        func eachSampleIsReadInItsDeclaredCharset(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, _ in
                // Linux's Foundation cannot decode EUC-JP (CharsetTests covers that refusal).
                for sample in TextRoutes.samples where sample.label != "euc-jp" {
                    let env = try await connection.get("text?charset=\(sample.label)").value
                    #expect(Array(env.body) == TextRoutes.bytes(hex: sample.hex), "\(sample.label): the bytes as sent")
                    #expect(try env.response?.decodedText() == sample.text, "\(sample.label)")
                }
            }
        }
    }
}
