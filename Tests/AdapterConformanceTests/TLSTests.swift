import Faraday
import FaradayTestSupport
import Foundation
import Testing

extension AdapterConformance {
@Suite(.timeLimit(.minutes(2))) struct TLSTests {
    @Test func asyncHTTPClientTalksToTheHTTPSServerWhenTrustingItsCA() async throws {
        let certificates = try TestCertificates.generate()
        try await withConnection(.asyncHTTPClient, tls: certificates, trust: certificates) { connection, _ in
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
