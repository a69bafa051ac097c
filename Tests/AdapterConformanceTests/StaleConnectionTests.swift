import Faraday
import FaradayTestSupport
import Foundation
import Testing

extension AdapterConformance {
    /// Issue 62: a server closes an idle keep-alive connection at its own timeout, and the close
    /// can cross the next request on the wire. The test server closes a reused connection as the
    /// request arrives, unanswered (by FIN, or by RST), which is what the client then sees. A
    /// request that may be sent twice goes once more on a new connection, as curl, Go and OkHttp
    /// send it; any other fails with `connectionFailed`.
    @Suite(.timeLimit(.minutes(1))) struct StaleConnectionTests {
        static let idempotencyKey = HTTPField.Name("Idempotency-Key")!

        /// Leaves an idle connection wherever the next call may go: NIOAdapter starts sequential
        /// calls from Swift's pool on its event loops in turn, each loop with its own connections.
        private func warmUp(_ connection: Connection) async throws {
            for _ in 0..<(2 * ProcessInfo.processInfo.activeProcessorCount) {
                _ = try await connection.get("echo").value
            }
        }

        /// Runs `call` with the next request on a reused connection closed unanswered, until a
        /// call met such a close (at most five times: AsyncHTTPClient may open a new connection
        /// for a call made as the last one's goes back to its pool), and returns what that call
        /// gave. Each call's request reaches the server once, whatever happens.
        private func meetingAClosedConnection<Value>(
            _ server: TestServer,
            reset: Bool = false,
            _ call: () async throws -> Value
        ) async throws -> Result<Value, any Error> {
            let closed = server.requestsClosedOnReuse
            var result: Result<Value, any Error> = .failure(CancellationError())
            for _ in 0..<5 where server.requestsClosedOnReuse == closed {
                server.closeReusedConnections(next: 1, reset: reset)
                let answered = server.requestsReceived
                do {
                    result = .success(try await call())
                } catch {
                    result = .failure(error)
                }
                #expect(server.requestsReceived <= answered + 1, "a request reached the server twice")
            }
            server.closeReusedConnections(next: 0)
            #expect(server.requestsClosedOnReuse == closed + 1, "no call went on a reused connection")
            return result
        }

        @Test(arguments: AdapterKind.allCases, [false, true])
        func aGETIsSentAgainOnANewConnection(_ kind: AdapterKind, _ reset: Bool) async throws {
            try await withConnection(kind) { connection, server in
                try await warmUp(connection)
                let echo = try await meetingAClosedConnection(server, reset: reset) {
                    try await connection.get("echo").echo
                }
                #expect(try echo.get().method == "GET")
            }
        }

        /// A body goes again whole. (URLSessionAdapter on Linux sends a body on a connection of
        /// its own instead: the next test.)
        @Test(arguments: AdapterKind.onNIO, [false, true])
        func aCallWithABodyThatMayGoTwiceIsSentAgainWhole(_ kind: AdapterKind, _ reset: Bool) async throws {
            try await withConnection(kind) { connection, server in
                try await warmUp(connection)
                let put = try await meetingAClosedConnection(server, reset: reset) {
                    try await connection.put("echo", body: .text("again")).echo
                }
                #expect(try put.get().method == "PUT" && put.get().body == "again")

                let replayable = RequestBody.stream(length: 6) { [Data("abc".utf8), Data("def".utf8)].async }
                let streamed = try await meetingAClosedConnection(server, reset: reset) {
                    try await connection.put("echo", body: replayable).echo
                }
                #expect(try streamed.get().body == "abcdef")

                let keyed = try await meetingAClosedConnection(server, reset: reset) {
                    try await connection.post("echo", headers: [Self.idempotencyKey: "k-1"], body: .text("k")).echo
                }
                #expect(try keyed.get().method == "POST" && keyed.get().body == "k")
            }
        }

        /// On Linux, FoundationNetworking cannot rewind a body for libcurl's second try (the call
        /// waited for its timeout, and a delegate answering `needNewBodyStream` stopped the
        /// process): URLSessionAdapter sends a request with a body on a connection of its own, so
        /// that it never meets a reused connection closed under it. A GET still reuses one.
        @Test func aBodyOnURLSessionGoesOnAConnectionOfItsOwn() async throws {
            var options = RequestOptions()
            options.timeout = .seconds(10)
            try await withConnection(.urlSession, options: options) { connection, server in
                try await warmUp(connection)
                let closed = server.requestsClosedOnReuse
                server.closeReusedConnections(next: 1)
                let put = try await connection.put("echo", body: .text("whole")).echo
                #expect(put.method == "PUT" && put.body == "whole")
                #if canImport(FoundationNetworking)
                #expect(server.requestsClosedOnReuse == closed, "the PUT went on a reused connection")
                #endif
                let get = try await connection.get("echo").echo
                #expect(get.method == "GET")
                #expect(server.requestsClosedOnReuse == closed + 1, "the GET went on a new connection")
                server.closeReusedConnections(next: 0)
            }
        }

        /// Idle connections a server closes together (nginx closes those idle past its timeout
        /// at once): AsyncHTTPClient's pool may hand out one after another, and the call goes
        /// on until one is not closed; NIOAdapter goes to a new connection straight away.
        @Test(arguments: AdapterKind.onNIO)
        func aCallGoesThroughWhenSeveralIdleConnectionsWereClosed(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, server in
                // Several connections open at once, then idle.
                for _ in 0..<ProcessInfo.processInfo.activeProcessorCount {
                    async let first = connection.get("delay/50").value
                    async let second = connection.get("delay/50").value
                    async let third = connection.get("delay/50").value
                    _ = try await (first, second, third)
                }
                server.closeReusedConnections(next: 3)
                #expect(try await connection.get("echo").echo.method == "GET")
                #expect(server.requestsClosedOnReuse >= 1)
                server.closeReusedConnections(next: 0)
            }
        }

        /// Bytes of the answer came: the request reached the server, and is not sent again.
        @Test(arguments: AdapterKind.onNIO)
        func aCallCutAfterItsAnswerBeganIsNotSentAgain(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, server in
                try await warmUp(connection)
                let answered = server.requestsReceived
                let error = await #expect(throws: FaradayError.self) {
                    try await connection.get("fault/reset-mid-body").value
                }
                #expect(error?.code == .connectionFailed)
                #expect(server.requestsReceived == answered + 1)
            }
        }

        /// A POST without an `Idempotency-Key`, and a one-shot body, may have been acted on: the
        /// call fails rather than send it twice. (URLSessionAdapter's libcurl sends any request
        /// again on a new connection; the Adapters article says so.)
        @Test(arguments: AdapterKind.onNIO)
        func aCallThatMayNotGoTwiceFails(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, server in
                try await warmUp(connection)
                let post = try await meetingAClosedConnection(server) {
                    try await connection.post("echo", body: .text("once")).value
                }
                #expect(throws: FaradayError.self) { try post.get() }

                try await warmUp(connection)
                let put = try await meetingAClosedConnection(server) {
                    let chunks = AsyncStream<Data> { continuation in
                        continuation.yield(Data("one-shot".utf8))
                        continuation.finish()
                    }
                    return try await connection.put("echo", body: .stream(chunks, length: 8)).value
                }
                #expect(throws: FaradayError.self) { try put.get() }
            }
        }
    }
}
