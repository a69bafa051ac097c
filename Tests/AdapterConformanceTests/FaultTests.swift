import Faraday
import FaradayAsyncHTTPClient
import FaradayTestSupport
import Foundation
import Testing

extension AdapterConformance {
    @Suite(.timeLimit(.minutes(2))) struct FaultTests {
        @Test(arguments: AdapterKind.allCases)
        func aRefusedConnectionIsAConnectionFailure(_ kind: AdapterKind) async throws {
            let port = try await unusedLocalPort()
            let connection = try Connection(url: "http://127.0.0.1:\(port)") { $0.adapter = try kind.makeAdapter() }
            await #expect {
                try await connection.get("echo").value
            } throws: { error in
                isFaradayError(error, .connectionFailed)
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func aResetMidBodyFailsAfterTheChunksAlreadyDelivered(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, _ in
                var received = 0
                await #expect {
                    for try await env in connection.get(
                        "fault/reset-mid-body",
                        configure: { $0.options.streaming = .chunks }
                    ).completions {
                        received += env.body.count
                    }
                } throws: { error in
                    isFaradayError(error, .connectionFailed, .invalidResponse)
                }
                #expect(received == 1000)
            }
        }

        @Test(
            arguments: AdapterKind.allCases,
            ["fault/truncated-chunked", "fault/short-body", "fault/reset-before-head"]
        )
        func truncatedResponsesAreErrors(_ kind: AdapterKind, _ path: String) async throws {
            try await withConnection(kind) { connection, _ in
                await #expect {
                    try await connection.get(path).value
                } throws: { error in
                    isFaradayError(error, .connectionFailed, .invalidResponse)
                }
            }
        }

        @Test(arguments: AdapterKind.allCases, ["fault/garbage", "fault/invalid-status"])
        func invalidResponsesAreErrors(_ kind: AdapterKind, _ path: String) async throws {
            try await withConnection(kind) { connection, _ in
                await #expect {
                    try await connection.get(path).value
                } throws: { error in
                    isFaradayError(error, .invalidResponse, .connectionFailed)
                }
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func theWholeCallTimesOut(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, _ in
                await #expect {
                    try await connection.get("fault/never") { $0.options.timeout = .milliseconds(300) }.value
                } throws: { error in
                    isFaradayError(error, .callTimeout)
                }
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func aStalledBodyHitsTheReadTimeout(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, _ in
                var frames = 0
                await #expect {
                    for try await env in connection.get(
                        "stall",
                        configure: {
                            $0.options.streaming = .chunks
                            $0.options.readTimeout = .milliseconds(300)
                        }
                    ).completions where !env.isFinal {
                        frames += 1
                    }
                } throws: { error in
                    isFaradayError(error, .readTimeout)
                }
                #expect(frames == 1)
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func aDrippingServerIsReadToTheEndOrCutAtTheDeadline(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, _ in
                // A byte every 300 ms keeps a 2 s read timeout satisfied…
                let slow = try await connection.get("drip?bytes=3&interval=300") {
                    $0.options.readTimeout = .seconds(2)
                }.value
                #expect(slow.response?.text == "...")
                // …and a whole-call deadline still ends it.
                await #expect {
                    try await connection.get("drip?bytes=20&interval=300") { $0.options.timeout = .milliseconds(700) }
                        .value
                } throws: { error in
                    isFaradayError(error, .callTimeout)
                }
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func anOversizedHeaderIsAnError(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, _ in
                await #expect {
                    try await connection.get("fault/huge-header").value
                } throws: { error in
                    isFaradayError(error, .invalidResponse, .connectionFailed)
                }
                // The connection that failed is not reused for the next call.
                let next = try await connection.get("echo").value
                #expect(next.response?.status == .ok)
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func aNonUTF8HeaderNeitherCrashesNorLosesTheBody(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, _ in
                if kind == .urlSession && !platformCanPauseURLSession {
                    // FoundationNetworking refuses the whole response: a typed error, no crash.
                    await #expect(throws: FaradayError.self) { try await connection.get("fault/non-utf8-header").value }
                    return
                }
                let env = try await connection.get("fault/non-utf8-header").value
                #expect(env.response?.status == .ok)
                #expect(env.response?.text == "ok")
                #expect(env.responseHeaders[.contentType] == "text/plain")
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func bytesPastTheContentLengthAreNotPartOfTheBody(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, _ in
                let env = try await connection.get("fault/long-body").value
                #expect(env.response?.text == "hello")
                // Nor of the next response (the server closes that connection: a client that reused
                // it anyway would read them as the start of its next answer).
                let next = try await connection.get("echo").echo
                #expect(next.path == "/echo")
            }
        }

        @Test(arguments: AdapterKind.allCases, ["fault/reset-mid-body", "fault/truncated-chunked", "fault/short-body"])
        func aBrokenStreamEndsWithExactlyOneFinalCompletion(_ kind: AdapterKind, _ path: String) async throws {
            try await withConnection(kind) { connection, _ in
                let phases = Recorder()
                let response = connection.get(path) { $0.options.streaming = .chunks }
                response.onComplete { env in
                    phases.record(env.isFinal ? "final \(env.error == nil ? "ok" : "error")" : "frame")
                }
                await #expect(throws: FaradayError.self) { try await response.value }
                #expect(phases.log.filter { $0.hasPrefix("final") } == ["final error"])
                #expect(phases.log.last == "final error")
            }
        }

        @Test func aHandshakeThatNeverCompletesHitsTheOpenTimeout() async throws {
            let silent = try await SilentServer.start()
            let adapter = try AdapterKind.asyncHTTPClient.makeAdapter()
            let connection = try Connection(url: "https://127.0.0.1:\(silent.port)") { $0.adapter = adapter }
            await #expect {
                try await connection.get("x") { $0.options.openTimeout = .milliseconds(300) }.value
            } throws: { error in
                isFaradayError(error, .connectTimeout)
            }
            try await (adapter as? AsyncHTTPClientAdapter)?.shutdown()
            try await silent.shutdown()
        }

        /// A call cancelled while its connection opens (here, a TLS handshake the server never
        /// answers) ends at once with `cancelled`, not at the open timeout (ten minutes here, past
        /// the suite's time limit; URLSession has no open timeout of its own, so its read timeout
        /// is set to as much).
        @Test(arguments: AdapterKind.allCases)
        func aCallCancelledWhileItsConnectionOpensEndsAtOnce(_ kind: AdapterKind) async throws {
            let silent = try await SilentServer.start()
            let adapter = try kind.makeAdapter()
            let connection = try Connection(url: "https://127.0.0.1:\(silent.port)") { $0.adapter = adapter }
            let call = connection.get("x") {
                $0.options.readTimeout = .seconds(600)
                if kind != .urlSession { $0.options.openTimeout = .seconds(600) }
            }
            let answer = Task { try await call.value }
            try await waitUntil { silent.connectionsAccepted == 1 }
            call.cancel()
            await #expect {
                try await answer.value
            } throws: { error in
                isFaradayError(error, .cancelled)
            }
            // AsyncHTTPClient's shutdown waits for the connection it is still opening: closed by
            // the server first.
            try await silent.shutdown()
            try await shutDown(adapter)
        }

        /// A server that accepts and then sends nothing does not hold a call forever: with no
        /// `readTimeout` set, both adapters give up after ``RequestOptions/defaultReadTimeout``
        /// (60 s) with `readTimeout`. (This test waits those 60 s, alongside the rest of the suite;
        /// before the default, AsyncHTTPClientAdapter waited until the suite's time limit.)
        @Test(arguments: AdapterKind.allCases)
        func aSilentServerFailsACallAfterTheDefaultReadTimeout(_ kind: AdapterKind) async throws {
            let silent = try await SilentServer.start()
            let adapter = try kind.makeAdapter()
            let connection = try Connection(url: "http://127.0.0.1:\(silent.port)") { $0.adapter = adapter }
            await #expect {
                try await connection.get("x").value
            } throws: { error in
                isFaradayError(error, .readTimeout)
            }
            try await (adapter as? AsyncHTTPClientAdapter)?.shutdown()
            try await silent.shutdown()
        }

        @Test func anUploadNobodyReadsHitsTheWriteTimeout() async throws {
            let silent = try await SilentServer.start()
            let adapter = try AdapterKind.asyncHTTPClient.makeAdapter()
            let connection = try Connection(url: "http://127.0.0.1:\(silent.port)") { $0.adapter = adapter }
            await #expect {
                try await connection.post("upload", body: .bytes(Data(count: 64 << 20))) {
                    $0.options.writeTimeout = .milliseconds(300)
                }.value
            } throws: { error in
                isFaradayError(error, .writeTimeout)
            }
            try await (adapter as? AsyncHTTPClientAdapter)?.shutdown()
            try await silent.shutdown()
        }

        @Test func urlSessionRefusesTimeoutsItCannotHonourBeforeSending() async throws {
            try await withConnection(.urlSession) { connection, server in
                for set in [
                    { (options: inout RequestOptions) in options.openTimeout = .seconds(1) },
                    { (options: inout RequestOptions) in options.writeTimeout = .seconds(1) },
                ] {
                    await #expect {
                        try await connection.get("echo") { set(&$0.options) }.value
                    } throws: { error in
                        isFaradayError(error, .unsupportedOption)
                    }
                }
                #expect(server.requestsReceived == 0)
            }
        }
    }
}
