import Faraday
import Foundation
import Testing

@Suite(.timeLimit(.minutes(1))) struct URLEncodedTests {
    @Test func encodesParamsWithTheNestedEncoderByDefault() async throws {
        let stubs = TestAdapter()
        stubs.post(
            "/v1/login",
            headers: [.contentType: "application/x-www-form-urlencoded"],
            body: .equals("user=ada+l&roles%5B%5D=admin&roles%5B%5D=dev")
        ) { _, _ in StubResponse() }
        let connection = try makeConnection([URLEncoded.Handler()], adapter: stubs)
        _ = try await connection.post("login", body: .form(["user": "ada l", "roles": ["admin", "dev"]])).value
    }

    @Test func theFlatEncoderRepeatsNames() async throws {
        let stubs = TestAdapter()
        stubs.post("/v1/tags", body: .equals("tag=a&tag=b")) { _, _ in StubResponse() }
        let connection = try makeConnection([URLEncoded.Handler(encoder: FlatParamsEncoder())], adapter: stubs)
        _ = try await connection.post("tags", body: .form(["tag": ["a", "b"]])).value
    }

    @Test func otherBodiesPassThrough() async throws {
        let stubs = TestAdapter()
        stubs.post("/v1/x", body: .equals("raw")) { env, _ in
            StubResponse(body: env.request.headers[.contentType] ?? "none")
        }
        let connection = try makeConnection([URLEncoded.Handler()], adapter: stubs)
        #expect(
            try await connection.post("x", body: .bytes(Data("raw".utf8))).value.response?.text
                == "application/octet-stream"
        )
    }
}
