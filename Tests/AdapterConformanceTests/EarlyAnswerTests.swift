import Faraday
import FaradayTestSupport
import Foundation
import Testing

extension AdapterConformance {
    /// A server may answer a request with a body before it reads the body (nginx's `return 200`
    /// does, then reads and discards the body) and close the connection as the body ends (a
    /// keep-alive timeout falling right then). No adapter stops the process: AsyncHTTPClient 1.37
    /// did ("A connection that we don't know was released?") when the close crossed its report
    /// that the connection was idle again, which it makes from the event loop of the call's
    /// delegate, often not the connection's (see `AnswerEndAfterRequestEnd`).
    ///
    /// NIOAdapter and AsyncHTTPClientAdapter hand every call its whole answer; libcurl
    /// (URLSessionAdapter on Linux) fails one whose connection it reused after an early answer,
    /// with a typed error (the Adapters article says so).
    @Suite(.timeLimit(.minutes(2))) struct EarlyAnswerTests {
        @Test(arguments: AdapterKind.allCases)
        func anAnswerBeforeTheBodyEndsComesWholeOrFailsTyped(_ kind: AdapterKind) async throws {
            let server = try await FaultServer.start(seed: 0, always: .okBeforeBody)
            let adapter = try kind.makeAdapter()
            var options = RequestOptions()
            options.timeout = .seconds(5)
            let connection = try Connection(url: server.baseURL.absoluteString, options: options) {
                $0.adapter = adapter
            }
            let outcomes = try await withThrowingTaskGroup { group in
                for worker in 0..<4 {
                    group.addTask {
                        var outcomes: [String: Int] = [:]
                        for round in 0..<100 {
                            // A GET leaves its connection idle on the event loop it ran on; the
                            // PUT after it may take that connection from another loop.
                            _ = try await connection.get("c/get-\(worker)-\(round)").value
                            let name = "put-\(worker)-\(round)"
                            let body = RequestBody.bytes(Data(FaultServer.requestBody(for: name)))
                            do {
                                let put = try await connection.put("c/\(name)", body: body).value
                                let whole =
                                    put.status?.code == 200
                                    && put.responseHeaders[HTTPField.Name("x-request-name")!] == name
                                    && put.body.elementsEqual(FaultServer.responseBody(for: name))
                                outcomes[whole ? "whole" : "wrong", default: 0] += 1
                            } catch let error as FaradayError {
                                outcomes["\(error.code)", default: 0] += 1
                            } catch {
                                outcomes["untyped \(error)", default: 0] += 1
                            }
                        }
                        return outcomes
                    }
                }
                return try await group.reduce(into: [:]) { $0.merge($1, uniquingKeysWith: +) }
            }
            try await shutDown(adapter)
            try await server.shutdown()

            #expect(outcomes.values.reduce(0, +) == 400)
            #expect(outcomes["wrong"] == nil, "\(outcomes)")
            let typed: Set = ["whole", "connectionFailed", "callTimeout", "readTimeout", "writeTimeout"]
            #expect(Set(outcomes.keys).isSubset(of: typed), "\(outcomes)")
            if kind != .urlSession { #expect(outcomes["whole"] == 400, "\(outcomes)") }
        }

        /// A server that closes each connection as soon as it has answered (gunicorn's sync
        /// workers, nginx at its `keepalive_requests`) may close before the client has marked its
        /// request's end sent: a `Content-Length` body's end writes no byte, so the server has
        /// the whole request and answers it. Every adapter hands each such call its whole answer;
        /// AsyncHTTPClient 1.37 alone failed some with `remoteConnectionClosed`.
        @Test(arguments: AdapterKind.allCases)
        func aWholeAnswerThenACloseComesWhole(_ kind: AdapterKind) async throws {
            let server = try await FaultServer.start(seed: 0, always: .closeAfterAnswer)
            let adapter = try kind.makeAdapter()
            var options = RequestOptions()
            options.timeout = .seconds(5)
            let connection = try Connection(url: server.baseURL.absoluteString, options: options) {
                $0.adapter = adapter
            }
            let outcomes = try await withThrowingTaskGroup { group in
                for worker in 0..<4 {
                    group.addTask {
                        var outcomes: [String: Int] = [:]
                        for round in 0..<100 {
                            let name = "put-\(worker)-\(round)"
                            let body = RequestBody.bytes(Data(FaultServer.requestBody(for: name)))
                            do throws(FaradayError) {
                                let put = try await connection.put("c/\(name)", body: body).value
                                let whole =
                                    put.status?.code == 200
                                    && put.responseHeaders[HTTPField.Name("x-request-body")!] == "ok"
                                    && put.body.elementsEqual(FaultServer.responseBody(for: name))
                                outcomes[whole ? "whole" : "wrong", default: 0] += 1
                            } catch {
                                outcomes["\(error.code)", default: 0] += 1
                            }
                        }
                        return outcomes
                    }
                }
                return try await group.reduce(into: [:]) { $0.merge($1, uniquingKeysWith: +) }
            }
            try await shutDown(adapter)
            try await server.shutdown()

            #expect(outcomes == ["whole": 400])
        }
    }
}
