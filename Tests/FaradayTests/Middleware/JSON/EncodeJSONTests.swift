import Faraday
import Foundation
import Testing

@Suite(.timeLimit(.minutes(1))) struct EncodeJSONTests {
    private struct User: Codable, Equatable {
        let name: String
        let age: Int
    }

    private func connection(_ stubs: TestAdapter) throws -> Connection {
        try makeConnection([EncodeJSON.Handler()], adapter: stubs)
    }

    @Test func encodesJSONValuesAndSetsTheContentType() async throws {
        let stubs = TestAdapter()
        stubs.post("/v1/users", headers: [.contentType: "application/json"], body: .equals(#"{"name":"Ada"}"#)) {
            _,
            _ in
            StubResponse(status: .created)
        }
        let env = try await connection(stubs).post("users", body: .json(["name": "Ada"])).value
        #expect(env.status == .created)
    }

    @Test func encodesEncodableValuesWithTheConfiguredEncoder() async throws {
        let stubs = TestAdapter()
        stubs.post("/v1/users") { env, _ in
            StubResponse(body: try env.request.body.bytes)
        }
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        struct Profile: Encodable, Sendable { let firstName: String }
        let connection = try makeConnection([EncodeJSON.Handler(encoder: encoder)], adapter: stubs)
        let env = try await connection.post("users", body: .json(Profile(firstName: "Ada"))).value
        #expect(env.response?.text == #"{"first_name":"Ada"}"#)
    }

    @Test func keepsAContentTypeTheCallerSet() async throws {
        let stubs = TestAdapter()
        stubs.post("/v1/x", headers: [.contentType: "application/vnd.api+json"]) { _, _ in StubResponse() }
        _ = try await connection(stubs).post(
            "x",
            headers: [.contentType: "application/vnd.api+json"],
            body: .json([1, 2])
        ).value
    }

    @Test func leavesOtherBodiesAlone() async throws {
        let stubs = TestAdapter()
        stubs.post("/v1/x", body: .equals("plain")) { env, _ in
            StubResponse(body: env.request.headers[.contentType] ?? "none")
        }
        let env = try await connection(stubs).post("x", body: .bytes(Data("plain".utf8))).value
        #expect(env.response?.text == "application/octet-stream", "untouched by the JSON encoder")
    }

    @Test func anUnencodableValueFailsBeforeSending() async throws {
        struct Bad: Encodable, Sendable {
            func encode(to encoder: any Encoder) throws {
                throw EncodingError.invalidValue(self, .init(codingPath: [], debugDescription: "nope"))
            }
        }
        let stubs = TestAdapter()
        await #expect {
            try await connection(stubs).post("x", body: .json(Bad())).value
        } throws: { error in
            (error as? FaradayError)?.code == .encodingFailed
        }
        #expect(stubs.calls.isEmpty)
    }
}
