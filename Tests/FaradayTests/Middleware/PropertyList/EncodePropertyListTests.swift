import Faraday
import Foundation
import Testing

@Suite(.timeLimit(.minutes(1))) struct EncodePropertyListTests {
    struct Settings: Codable, Sendable, Equatable {
        let theme: String
        let fontSize: Int
    }

    @Test(arguments: [PropertyListSerialization.PropertyListFormat.xml, .binary])
    func encodesEncodableValues(_ format: PropertyListSerialization.PropertyListFormat) async throws {
        let stubs = TestAdapter()
        stubs.post(
            "/v1/settings",
            headers: [.contentType: "application/x-plist"],
            body: .matching { data in
                (try? PropertyListDecoder().decode(Settings.self, from: data)) == Settings(theme: "dark", fontSize: 12)
                    && (format == .binary) == data.starts(with: Data("bplist".utf8))
            }
        ) { _, _ in StubResponse() }
        let connection = try makeConnection([EncodePropertyList.Handler(format: format)], adapter: stubs)
        _ = try await connection.post("settings", body: .propertyList(Settings(theme: "dark", fontSize: 12))).value
    }

    struct Unencodable: Encodable, Sendable {
        func encode(to encoder: any Encoder) throws {
            throw EncodingError.invalidValue(self, .init(codingPath: [], debugDescription: "never"))
        }
    }

    @Test func aValueThatFailsToEncodeFailsBeforeSending() async throws {
        let stubs = TestAdapter()
        stubs.post("/v1/settings") { _, _ in StubResponse() }
        let connection = try makeConnection([EncodePropertyList.Handler()], adapter: stubs)
        await #expect {
            try await connection.post("settings", body: .propertyList(Unencodable())).value
        } throws: { error in
            (error as? FaradayError)?.code == .encodingFailed
        }
        #expect(stubs.calls.isEmpty)
    }

    @Test func otherBodiesPassThrough() async throws {
        let stubs = TestAdapter()
        stubs.post("/v1/x", body: .equals("raw")) { env, _ in
            StubResponse(body: env.request.headers[.contentType] ?? "none")
        }
        let connection = try makeConnection([EncodePropertyList.Handler()], adapter: stubs)
        #expect(
            try await connection.post("x", body: .bytes(Data("raw".utf8))).value.response?.text
                == "application/octet-stream"
        )
    }
}
