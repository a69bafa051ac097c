import Faraday
import FaradayAsyncHTTPClient
import FaradayTestSupport
import Foundation
import Testing

extension AdapterConformance {
    @Suite(.timeLimit(.minutes(2))) struct TLSTests {
        @Test(arguments: AdapterKind.onNIO)
        func asyncHTTPClientTalksToTheHTTPSServerWhenTrustingItsCA(_ kind: AdapterKind) async throws {
            let certificates = try TestCertificates.generate()
            try await withConnection(kind, tls: certificates, trust: certificates) { connection, _ in
                let echo = try await connection.get("echo").echo
                #expect(echo.path == "/echo")
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func anUntrustedCertificateFailsTheRequest(_ kind: AdapterKind) async throws {
            let certificates = try TestCertificates.generate()
            try await withConnection(kind, tls: certificates) { connection, server in
                await #expect {
                    try await connection.get("echo").value
                } throws: { error in
                    isFaradayError(error, .tlsFailure, .connectionFailed)
                }
                #expect(server.requestsReceived == 0)
            }
        }
    }
}

extension AdapterConformance {
    @Suite(.timeLimit(.minutes(2))) struct HTTP2Tests {
        @Test func asyncHTTPClientNegotiatesHTTP2() async throws {
            let server = try await HTTP2TestServer.start()
            let adapter = try AdapterKind.asyncHTTPClient.makeAdapter(trusting: server.certificates)
            let connection = try Connection(url: server.baseURL.absoluteString) { $0.adapter = adapter }
            let env = try await connection.post("echo", body: .text("over h2")).value
            #expect(env.responseHeaders[HTTPField.Name("x-http-version")!] == "2")
            #expect(env.response?.httpVersion == "2", "the negotiated version is on the response")
            #expect(try await connection.get("echo").value.response?.httpVersion == "2")
            #expect(env.response?.text == "POST /echo")
            // Several streams on the one connection, at once.
            try await withThrowingTaskGroup(of: String?.self) { group in
                for index in 0..<20 { group.addTask { try await connection.get("n/\(index)").value.response?.text } }
                var answers = Set<String>()
                for try await answer in group { answers.insert(answer ?? "") }
                #expect(answers == Set((0..<20).map { "GET /n/\($0)" }))
            }
            try await (adapter as? AsyncHTTPClientAdapter)?.shutdown()
            try await server.shutdown()
        }
    }
}
