import Faraday
import Foundation
import HTTPTypes
import Testing

@Suite(.timeLimit(.minutes(1))) struct ConnectionTests {
    @Test func everyVerbSendsItsMethod() async throws {
        let stubs = TestAdapter()
        let methods: [HTTPRequest.Method] = [.get, .head, .delete, .post, .put, .patch, .options, .trace]
        for method in methods + [HTTPRequest.Method("PURGE")!] {
            stubs.stub(method, .path("/v1/r"), response: StubResponse(body: method.rawValue))
        }
        let connection = try makeConnection(adapter: stubs)
        let responses = [
            connection.get("r"), connection.head("r"), connection.delete("r"), connection.post("r"),
            connection.put("r"), connection.patch("r"), connection.options("r"), connection.trace("r"),
            connection.run(method: "PURGE", "r"),
        ]
        var bodies: [String] = []
        for response in responses { bodies.append(try await response.value.response?.text ?? "") }
        #expect(bodies == ["GET", "HEAD", "DELETE", "POST", "PUT", "PATCH", "OPTIONS", "TRACE", "PURGE"])
        try stubs.verifyStubbedCalls()
    }

    @Test func theClassicCallShapesWork() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/x") { _, _ in StubResponse(body: "classic") }
        let connection = try Connection(url: "https://api.example.com/v1")
        try connection.use(handler: RequestID.Handler())
        try connection.editStack { $0.adapter = stubs }

        let body = await withCheckedContinuation { continuation in
            connection.get(path: "x").onComplete { env in continuation.resume(returning: env.response?.text) }
        }
        #expect(body == "classic")
    }

    @Test func defaultOptionsReachTheEnvAndRequestsOverrideThem() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/x") { env, _ in
            StubResponse(body: "\(env.request.options.timeout.map { "\($0)" } ?? "none")")
        }
        let connection = try makeConnection(adapter: stubs)
        connection.options.timeout = .seconds(5)
        #expect(try await connection.get("x").value.response?.text == "5.0 seconds")
        let overridden = try await connection.get("x") { $0.options.timeout = .seconds(1) }.value
        #expect(overridden.response?.text == "1.0 seconds")
    }

    @Test func aConnectionIsUsableFromDetachedTasks() async throws {
        let stubs = TestAdapter()
        stubs.stub(.get, .regex(#"/v1/t/\d+"#), response: StubResponse(body: "ok"))
        let connection = try makeConnection(adapter: stubs)
        let tasks = (0..<20).map { index in
            Task.detached { try await connection.get("t/\(index)").value.response?.text }
        }
        for task in tasks { #expect(try await task.value == "ok") }
    }

    @Test func errorsCarryTheRequest() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/x") { _, _ in throw FaradayError(.connectionFailed, "refused") }
        await #expect {
            try await makeConnection(adapter: stubs).get("x").value
        } throws: { error in
            guard let error = error as? FaradayError else { return false }
            return error.method == .get && error.url?.absoluteString == "https://api.example.com/v1/x"
                && error.description.contains("GET https://api.example.com/v1/x")
        }
    }
}
