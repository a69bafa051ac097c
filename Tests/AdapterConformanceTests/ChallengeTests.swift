import Faraday
import FaradayTestSupport
import Foundation
import Testing

/// Authentication challenges as real servers send them (nginx's `auth_basic`, Apache's
/// `mod_auth_digest`, a Kerberos front end, a proxy): the answer comes back as a response on
/// both adapters, never a hang, and credentials are the stack's business.
extension AdapterConformance {
    @Suite(.timeLimit(.minutes(1))) struct ChallengeTests {
        static let schemes = [
            ("basic", 401, "www-authenticate"), ("digest", 401, "www-authenticate"),
            ("negotiate", 401, "www-authenticate"), ("proxy", 407, "proxy-authenticate"),
        ]

        @Test(arguments: AdapterKind.allCases, [false, true])
        func aChallengeComesBackAsTheResponseItIs(_ kind: AdapterKind, _ streamed: Bool) async throws {
            try await withConnection(kind) { connection, _ in
                for (scheme, status, header) in Self.schemes {
                    let response = connection.get("challenge/\(scheme)") {
                        $0.options.streaming = streamed ? .chunks : nil
                    }
                    var body = Data()
                    var last: Env?
                    for try await env in response.completions {
                        body.append(env.body)
                        last = env
                    }
                    #expect(last?.status?.code == status, "\(scheme)")
                    #expect(last?.responseHeaders[HTTPField.Name(header)!] != nil, "\(scheme)")
                    #expect(String(decoding: body, as: UTF8.self).contains("credentials required"), "\(scheme)")
                }
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func raiseErrorTurnsAChallengeIntoItsNamedError(_ kind: AdapterKind) async throws {
            try await withConnection(kind, handlers: [RaiseError.Handler()]) { connection, _ in
                await #expect {
                    try await connection.get("challenge/basic").value
                } throws: { error in
                    let error = error as? FaradayError
                    return error?.code == .unauthorized && error?.document?.message == "credentials required"
                }
                await #expect {
                    try await connection.get("challenge/proxy").value
                } throws: { error in
                    (error as? FaradayError)?.code == .proxyAuthenticationRequired
                }
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func credentialsFromTheStackAreAccepted(_ kind: AdapterKind) async throws {
            let handlers: [any Handler] = [Authorization.Handler(.basic(login: "user", password: "pass"))]
            try await withConnection(kind, handlers: handlers) { connection, _ in
                let env = try await connection.get("challenge/basic").value
                #expect(env.status == .ok)
                #expect(env.response?.text == "welcome")
            }
        }
    }
}
