import Faraday
import FaradayTestSupport
import Foundation
import Testing

/// The same request puts the same header fields on the wire with either adapter: what the
/// in-process server received is compared field by field, apart from those that belong to the
/// connection (`Host`, `Connection`) and the framing of a body of unknown length
/// (`Content-Length` or `Transfer-Encoding: chunked`).
extension AdapterConformance {
    @Suite(.timeLimit(.minutes(2))) struct WireEqualityTests {
        struct Case: Sendable, CustomTestStringConvertible {
            let name: String
            let method: String
            let body: @Sendable () throws -> RequestBody
            var testDescription: String { name }
        }

        static let cases: [Case] = [
            Case(name: "GET", method: "GET") { .empty },
            Case(name: "HEAD", method: "HEAD") { .empty },
            Case(name: "DELETE", method: "DELETE") { .empty },
            Case(name: "custom method", method: "PURGE") { .empty },
            Case(name: "POST bytes", method: "POST") { .bytes(Data([0, 1, 2, 3])) },
            Case(name: "POST text", method: "POST") { .text("hello") },
            Case(name: "POST JSON", method: "POST") { .json(["a": 1]) },
            Case(name: "PUT form", method: "PUT") { .form(["q": "a b", "n": "1"]) },
            Case(name: "POST multipart", method: "POST") { .multipart([.text("a", "1"), .text("b", "2")]) },
            Case(name: "PATCH stream, length known", method: "PATCH") {
                .stream(length: 6) { [Data("abc".utf8), Data("def".utf8)].async }
            },
            Case(name: "POST stream, length unknown", method: "POST") {
                .stream { [Data("abc".utf8), Data("def".utf8)].async }
            },
        ]

        /// Fields that describe the connection or the framing, not the request.
        static let connectionFields: Set<String> = ["host", "connection", "content-length", "transfer-encoding"]

        @Test(arguments: cases)
        func bothAdaptersSendTheSameFields(_ request: Case) async throws {
            var received: [AdapterKind: [String]] = [:]
            var lengths: [AdapterKind: Int] = [:]
            for kind in AdapterKind.allCases {
                try await withConnection(kind) { connection, _ in
                    let response = connection.run(method: request.method, "echo", body: try request.body())
                    let env = try await response.value
                    if request.method == "HEAD" {
                        // The answer has no body: the server repeats what it received in a header.
                        let headers = try JSONDecoder().decode(
                            [[String]].self,
                            from: Data((env.responseHeaders[HTTPField.Name("X-Received-Headers")!] ?? "").utf8)
                        )
                        received[kind] = Self.fields(headers, of: kind)
                    } else {
                        let echo = try JSONDecoder().decode(Echo.self, from: env.body)
                        received[kind] = Self.fields(echo.headers, of: kind)
                        lengths[kind] = echo.bodyLength
                    }
                }
            }
            #expect(received[.asyncHTTPClient] == received[.urlSession], "\(received)")
            #expect(lengths[.asyncHTTPClient] == lengths[.urlSession])
            // NIOAdapter sends exactly what AsyncHTTPClientAdapter sends.
            #expect(received[.nio] == received[.asyncHTTPClient], "\(received)")
            #expect(lengths[.nio] == lengths[.asyncHTTPClient])
        }

        /// Issue 62: the same answer reads the same on every adapter, its reason phrase included
        /// (`Status`'s `==` compares codes only, so the descriptions are compared). URLSession gives
        /// the code alone; its adapter adds the standard phrase, which the test server sends too.
        @Test func everyAdapterGivesTheSameStatusWithItsReasonPhrase() async throws {
            var statuses: [AdapterKind: [String]] = [:]
            for kind in AdapterKind.allCases {
                try await withConnection(kind) { connection, _ in
                    for code in [200, 201, 301, 404, 409, 429, 500, 503] {
                        let env = try await connection.get("status/\(code)").value
                        statuses[kind, default: []].append(env.status?.description ?? "none")
                    }
                }
            }
            #expect(statuses[.nio]?.first == "200 OK" && statuses[.nio]?.dropFirst(3).first == "404 Not Found")
            #expect(statuses[.urlSession] == statuses[.nio], "\(statuses)")
            #expect(statuses[.asyncHTTPClient] == statuses[.nio], "\(statuses)")
        }

        /// The fields the server received. URLSession adds `Accept-Language` from the process's
        /// locale and cannot be told not to (FoundationNetworking sends an empty field for an empty
        /// value): the one difference left, listed in the Adapters article.
        static func fields(_ headers: [[String]], of kind: AdapterKind) -> [String] {
            headers.compactMap { pair -> String? in
                guard let name = pair.first?.lowercased(), !connectionFields.contains(name),
                    !(kind == .urlSession && name == "accept-language")
                else {
                    return nil
                }
                // A multipart boundary is random: its presence is what must match.
                let value = (pair.last ?? "").replacingOccurrences(
                    of: #"boundary=[^;]+"#,
                    with: "boundary=…",
                    options: .regularExpression
                )
                return "\(name): \(value)"
            }.sorted()
        }
    }
}

extension Array where Element == Data {
    /// The chunks as an asynchronous sequence.
    var async: AsyncStream<Data> {
        AsyncStream { continuation in
            for chunk in self { continuation.yield(chunk) }
            continuation.finish()
        }
    }
}
