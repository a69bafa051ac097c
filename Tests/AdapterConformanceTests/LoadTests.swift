import Faraday
import FaradayTestSupport
import Foundation
import Logging
import Testing

extension AdapterConformance {
    /// Load and soak: many requests through one connection and a full stack, nothing lost, nothing
    /// duplicated, and no memory growth once warmed up.
    @Suite(.timeLimit(.minutes(10))) struct LoadTests {
        /// Counts what ``Instrumentation`` reports.
        final class Tally: EventMonitor {
            let finished = Locked(0)
            let failed = Locked(0)
            func callFinished(_ call: CallInfo, response: ResponseData, bytes: Int) {
                finished.withLock { $0 += 1 }
            }
            func callFailed(_ call: CallInfo, error: FaradayError) { failed.withLock { $0 += 1 } }
        }

        /// The six-middleware stack of the benchmarks, and more: every call goes through all of it.
        private func fullStack(_ tally: Tally) -> [any Handler] {
            let jar = CookieJar()
            // Cookies do not depend on the port: this one goes to every test server.
            jar.store(setCookieHeaders: ["session=s-load; Path=/"], from: URL(string: "http://127.0.0.1/")!)
            return [
                Instrumentation.Handler(monitors: [tally]),
                RaiseError.Handler(),
                Retry.Handler(),
                HTTPLogger.Handler(logger: Logger(label: "load") { _ in SwiftLogNoOpLogHandler() }),
                Authorization.Handler(.bearer("load-token")),
                Cookies.Handler(jar: jar),
                EncodeJSON.Handler(),
                DecodeJSON.Handler(),
            ]
        }

        /// Sends `ids` with at most `inFlight` at once; returns the ids the server echoed back, in
        /// the order of `ids`, for the calls that succeeded.
        private func send(_ ids: Range<Int>, inFlight: Int, through connection: Connection) async throws -> [Int?] {
            try await withThrowingTaskGroup(of: (Int, Int?).self) { group in
                var echoed = [Int?](repeating: nil, count: ids.count)
                var next = ids.lowerBound
                func launch() {
                    let id = next
                    next += 1
                    group.addTask {
                        let env = try await connection.post(
                            "echo",
                            params: ["id": "\(id)"],
                            body: .json(["id": .int(id)])
                        ).value
                        // The server echoes the body and query it got: both must be this request's.
                        let body = env.json?["body"]?.string.flatMap {
                            try? JSONDecoder().decode(JSON.self, from: Data($0.utf8))
                        }
                        let sameRequest = env.json?["query"]?["id"]?.string == "\(id)"
                        let headers = env.json?["headers"]?.array ?? []
                        let hasCredentials =
                            headers.contains { $0[0]?.string?.lowercased() == "authorization" }
                            && headers.contains { $0[0]?.string?.lowercased() == "cookie" }
                        return (id, sameRequest && hasCredentials ? body?["id"]?.int : nil)
                    }
                }
                for _ in 0..<min(inFlight, ids.count) { launch() }
                while let (id, answer) = try await group.next() {
                    echoed[id - ids.lowerBound] = answer
                    if next < ids.upperBound { launch() }
                }
                return echoed
            }
        }

        @Test(arguments: [(AdapterKind.asyncHTTPClient, 60_000), (AdapterKind.urlSession, 10_000)])
        func everyResponseMatchesItsRequestUnderLoad(_ kind: AdapterKind, _ count: Int) async throws {
            let tally = Tally()
            try await withConnection(kind, handlers: fullStack(tally)) { connection, server in
                let warmUp = count / 20
                let warm = try await send(0..<warmUp, inFlight: 200, through: connection)
                #expect(warm == (0..<warmUp).map { $0 })
                let afterWarmUp = ProcessMemory.resident

                let echoed = try await send(warmUp..<warmUp + count, inFlight: 200, through: connection)
                let afterRun = ProcessMemory.resident
                // Each answer is its own request's: none lost, none swapped, none duplicated.
                #expect(echoed == (warmUp..<warmUp + count).map { $0 })
                #expect(tally.finished.withLock { $0 } == warmUp + count)
                #expect(tally.failed.withLock { $0 } == 0)
                #expect(server.requestsReceived == warmUp + count)
                // A leak of 560 bytes a call on AsyncHTTPClient (3.3 KiB on URLSession) would cross the bound.
                let growth = afterRun - afterWarmUp
                #expect(
                    growth < 32 << 20,
                    "resident memory grew by \(growth >> 20) MiB over \(count) calls (\(growth / count) bytes a call)"
                )
            }
        }

        @Test(arguments: [(AdapterKind.asyncHTTPClient, 3_000), (AdapterKind.urlSession, 1_000)])
        func streamsCancelledAtRandomPointsEndCleanly(_ kind: AdapterKind, _ count: Int) async throws {
            try await withConnection(kind) { connection, server in
                func run(_ streams: Int) async throws -> (cancelled: Int, finals: Int) {
                    try await withThrowingTaskGroup(of: (Bool, Int).self) { group in
                        var cancelled = 0
                        var finals = 0
                        func tally(_ result: (wasCancelled: Bool, finals: Int)?) {
                            guard let result else { return }
                            cancelled += result.wasCancelled ? 1 : 0
                            finals += result.finals
                        }
                        for index in 0..<streams {
                            if index >= 100 { tally(try await group.next()) }
                            group.addTask {
                                let events = Recorder()
                                let stopAfter = Int.random(in: 1...9)  // 9: never, the stream has 8 frames
                                let response = connection.get("chunked?count=8&size=4096&interval=2") {
                                    $0.options.streaming = .chunks
                                }
                                response.onComplete { env in
                                    guard !env.isFinal else { return events.record("final") }
                                    events.record("frame")
                                    if events.log.count == stopAfter { env.cancel() }
                                }
                                _ = try? await response.value
                                let log = events.log
                                return (log.filter { $0 == "frame" }.count < 8, log.filter { $0 == "final" }.count)
                            }
                        }
                        while let result = try await group.next() { tally(result) }
                        return (cancelled, finals)
                    }
                }
                _ = try await run(200)
                let afterWarmUp = ProcessMemory.resident
                let (cancelled, finals) = try await run(count)
                let growth = ProcessMemory.resident - afterWarmUp
                #expect(cancelled > count / 2)
                // Every stream, cancelled or not, ended with exactly one final completion.
                #expect(finals == count)
                #expect(growth < 32 << 20, "resident memory grew by \(growth >> 20) MiB over \(count) streams")
                // And the server is not left sending to anyone.
                let answer = try await connection.get("echo").value
                #expect(answer.response?.status == .ok)
                _ = server
            }
        }
    }
}
