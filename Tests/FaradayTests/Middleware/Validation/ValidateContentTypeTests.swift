import Faraday
import Foundation
import Testing

@Suite(.timeLimit(.minutes(1))) struct ValidateContentTypeTests {
    private func call(
        accept: String?,
        contentType: String?,
        body: String = "x",
        handler: ValidateContentType.Handler = .init()
    ) async throws -> Env {
        let stubs = TestAdapter()
        stubs.get("/v1/x") { _, _ in
            StubResponse(status: .ok, headers: contentType.map { [.contentType: $0] } ?? [:], body: body)
        }
        return try await makeConnection([handler], adapter: stubs).get("x") { request in
            if let accept { request.headers[.accept] = accept }
        }.value
    }

    @Test(arguments: [
        ("application/json" as String?, "application/json; charset=utf-8" as String?),
        ("application/*", "application/problem+json"),
        ("text/html, application/json;q=0.8", "application/json"),
        ("*/*", "image/png"),
        (nil as String?, "anything/at-all"),
        ("*/*", nil as String?),
    ])
    func acceptedTypesPass(_ accept: String?, _ contentType: String?) async throws {
        _ = try await call(accept: accept, contentType: contentType)
    }

    @Test(arguments: [
        ("application/json", "text/html" as String?),
        ("application/json", nil),
        ("*/*, text/html;q=0", "text/html"),
        ("image/*", "application/json"),
    ])
    func otherTypesFailWithTheResponse(_ accept: String, _ contentType: String?) async throws {
        await #expect {
            try await call(accept: accept, contentType: contentType)
        } throws: { error in
            guard let error = error as? FaradayError else { return false }
            return error.code == .unacceptableContentType && error.response?.text == "x" && error.method == .get
        }
    }

    @Test func emptyBodiesAreNotChecked() async throws {
        _ = try await call(accept: "application/json", contentType: "text/html", body: "")
    }

    @Test func theHandlersTypesReplaceTheAcceptHeader() async throws {
        let handler = ValidateContentType.Handler(acceptableContentTypes: ["text/csv"])
        _ = try await call(accept: "application/json", contentType: "text/csv", handler: handler)
        await #expect(throws: FaradayError.self) {
            try await call(accept: "text/csv", contentType: "application/json", handler: handler)
        }
    }

    @Test func decodeJSONsAcceptIsWhatIsChecked() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/x") { _, _ in StubResponse(headers: [.contentType: "text/html"], body: "<html>") }
        let connection = try makeConnection([ValidateContentType.Handler(), DecodeJSON.Handler()], adapter: stubs)
        await #expect {
            try await connection.get("x").value
        } throws: { error in
            (error as? FaradayError)?.code == .unacceptableContentType
        }
    }
}
