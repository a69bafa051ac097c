import Faraday
import FaradayTestSupport
import Foundation
import Testing

extension AdapterConformance {
    @Suite(.timeLimit(.minutes(2))) struct RequestShapeTests {
        @Test(arguments: AdapterKind.allCases)
        func everyMethodReachesTheServer(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, _ in
                for method in ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "PURGE"] {
                    let echo = try await connection.run(method: method, "echo").echo
                    #expect(echo.method == method)
                }
                let head = try await connection.head("echo").value
                #expect(head.status == .ok)
                #expect(head.body.isEmpty)
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func theHTTPVersionIsOnTheResponseWhereTheAdapterKnowsIt(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, _ in
                let version = try await connection.get("echo").value.response?.httpVersion
                #expect(version == (kind.isOnNIO ? "1.1" : nil))
            }
        }

        /// An HTTP/1.0 server (Python's `http.server`, old proxies) is read, and its version named
        /// as RFC 9110 names it: "1.0", where HTTP/2's is "2".
        @Test(arguments: AdapterKind.allCases)
        func anHTTP10AnswerIsReadAndItsVersionNamed(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, _ in
                let reply = try await connection.get("http10").value
                #expect(reply.status == .ok)
                #expect(String(decoding: reply.body, as: UTF8.self) == "ok")
                #expect(reply.response?.httpVersion == (kind.isOnNIO ? "1.0" : nil))
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func aBodyWithGETIsSentOrRefusedBeforeSending(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, server in
                let before = server.requestsReceived
                let response = connection.run(method: .get, "echo", body: .text("ping"))
                if kind == .urlSession {
                    // Foundation cannot send it: a clear refusal, and nothing reaches the server.
                    let error = await #expect(throws: FaradayError.self) { try await response.value }
                    #expect(error?.code == .unsupportedOption)
                    #expect(server.requestsReceived == before)
                } else {
                    let echo = try await response.echo
                    #expect(echo.body == "ping")
                }
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func multiValuedAndCaseVariantHeadersTravelBothWays(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, _ in
                var headers = HTTPFields()
                headers.append(HTTPField(name: HTTPField.Name("X-Tag")!, value: "a"))
                headers.append(HTTPField(name: HTTPField.Name("x-tag")!, value: "b"))
                headers.append(HTTPField(name: HTTPField.Name("X-Mixed-Case")!, value: "Value"))
                headers.append(HTTPField(name: HTTPField.Name("x-spelled-lower")!, value: "v"))
                let echo = try await connection.get("echo", headers: headers).echo
                #expect(echo.values("x-tag") == ["a", "b"])
                #expect(echo.values("X-MIXED-CASE") == ["Value"])
                // A name goes out as the request spells it (names are case-insensitive; Apple's
                // URLSession may spell them its own way).
                #if canImport(FoundationNetworking)
                let spelledAsSent = true
                #else
                let spelledAsSent = kind.isOnNIO
                #endif
                if spelledAsSent { #expect(echo.headers.contains { $0.first == "x-spelled-lower" }, "\(echo.headers)") }

                let env = try await connection.get("headers").value
                let multi = env.responseHeaders[values: HTTPField.Name("x-multi")!]
                    .flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
                if kind == .urlSession {
                    // URLSession merges repeated response fields into one and does not keep their order.
                    #expect(Set(multi) == ["a", "b"])
                } else {
                    #expect(multi == ["a", "b"])
                }
                #expect(env.responseHeaders[HTTPField.Name("X-CASE")!] == "Upper")
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func queriesAreSentAsEncoded(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, _ in
                let echo = try await connection.get("echo", params: ["q": "a b&c", "list": ["1", "2"]]).echo
                #expect(echo.uri == "/echo?q=a+b%26c&list%5B%5D=1&list%5B%5D=2")
                let flat = try await connection.get("echo?x=1") { request in
                    request.options.paramsEncoder = FlatParamsEncoder(spaceEncoding: .percent20)
                    request.params = ["tag": ["a b", "c"]]
                }.echo
                #expect(flat.uri == "/echo?tag=a%20b&tag=c")
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func statusesWithoutBodiesHaveNone(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, _ in
                for code in [204, 304] {
                    let env = try await connection.get("status/\(code)").value
                    #expect(env.status?.code == code)
                    #expect(env.body.isEmpty)
                }
                let head = try await connection.head("bytes/100?length=1").value
                #expect(head.body.isEmpty)
                #expect(head.responseHeaders[.contentLength] == "100")
                let error = try await connection.get("status/503").value
                #expect(error.status == .serviceUnavailable)
                #expect(error.response?.text == "status 503")
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func redirectsAreNotFollowed(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, _ in
                let env = try await connection.get("status/302").value
                #expect(env.status?.code == 302)
            }
        }
    }
}
