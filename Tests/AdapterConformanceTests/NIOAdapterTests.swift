import Dispatch
import Faraday
import FaradayAsyncHTTPClient
import FaradayNIO
import FaradayTestSupport
import Foundation
import NIOCore
import NIOPosix
import Testing

extension AdapterConformance {
    /// What NIOAdapter does beyond the conformance suite: the call on its connection's event loop,
    /// slow work moved off that loop, and its pool's bounds.
    @Suite(.timeLimit(.minutes(2))) struct NIOAdapterTests {
        /// Records, for every call, on which event loop (if any) each hook ran.
        struct LoopProbe: Middleware {
            let app: any App
            let seen: Recorder

            func onRequest(_ env: inout Env) async throws -> (any EventLoop)? {
                let loop = MultiThreadedEventLoopGroup.currentEventLoop
                seen.record("request on a loop: \(loop != nil)")
                return loop
            }

            func onComplete(_ env: inout Env, state loop: (any EventLoop)?) throws {
                let current = MultiThreadedEventLoopGroup.currentEventLoop
                seen.record("complete on a loop: \(current != nil)")
                guard env.body.count >= 1 << 20, let loop else { return }
                // The call's loop runs a task while this hook holds its thread, or it is blocked:
                // a bound on a wait that cannot end if this runs on the loop, not a measure of speed.
                let ran = DispatchSemaphore(value: 0)
                loop.execute { ran.signal() }
                let answered = ran.wait(timeout: .now() + 60) == .success
                seen.record("the loop answered while the body was decoded: \(answered)")
            }
        }

        @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
        @Test func theStackRunsOnTheEventLoopOfItsConnection() async throws {
            for kind in AdapterKind.onNIO {
                let seen = Recorder()
                let server = try await TestServer.start()
                let adapter = try kind.makeAdapter()
                let connection = try Connection(url: server.baseURL.absoluteString) { builder in
                    builder.use { LoopProbe(app: $0, seen: seen) }
                    builder.adapter = adapter
                }
                _ = try await connection.get("echo").value
                #expect(MultiThreadedEventLoopGroup.currentEventLoop == nil, "the caller's code after the await")
                // NIOAdapter names its loop; AsyncHTTPClientAdapter names none, so the stack runs in
                // the caller's task, on Swift's pool.
                let onLoop = kind == .nio
                #expect(seen.log == ["request on a loop: \(onLoop)", "complete on a loop: \(onLoop)"], "\(kind)")
                try await shutDown(adapter)
                try await server.shutdown()
            }
        }

        /// Tasks of the caller's that prefer `loopExecutor()` make their calls on that loop, and
        /// their code after the await stays there: no hop either way.
        @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
        @Test func aCallerOnTheAdaptersLoopCallsWithNoHop() async throws {
            let seen = Recorder()
            let server = try await TestServer.start()
            let adapter = NIOAdapter()
            let connection = try Connection(url: server.baseURL.absoluteString) { builder in
                builder.use { LoopProbe(app: $0, seen: seen) }
                builder.adapter = adapter
            }
            let executor = adapter.loopExecutor()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask(executorPreference: executor) {
                        let before = MultiThreadedEventLoopGroup.currentEventLoop
                        _ = try await connection.get("echo").value
                        let after = MultiThreadedEventLoopGroup.currentEventLoop
                        #expect(before != nil && before === after, "the caller's code ran on one loop throughout")
                    }
                }
                try await group.waitForAll()
            }
            #expect(seen.log.filter { $0.hasSuffix("true") }.count == 8, "every hook of the 4 calls ran on a loop")
            try await adapter.shutdown()
            try await server.shutdown()
        }

        /// Issue 48, point 3: a 64 MiB JSON body is decoded off the loop, which answers meanwhile.
        @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
        @Test func aLargeJSONBodyIsDecodedOffTheLoopWhichStaysResponsive() async throws {
            let seen = Recorder()
            let server = try await TestServer.start()
            let adapter = NIOAdapter()
            let connection = try Connection(url: server.baseURL.absoluteString) { builder in
                builder.use(DecodeJSON.Handler())
                builder.use { LoopProbe(app: $0, seen: seen) }
                builder.adapter = adapter
            }
            let env = try await connection.get("ndjson?bytes=\(64 << 20)&size=8192&array=1") {
                $0.options.maxBufferedBodySize = 128 << 20
            }.value
            #expect(env.body.count == (64 << 20) + 1, "the records and the array's opening bracket")
            guard case .array(let records)? = env.json else {
                Issue.record("the body was not decoded as a JSON array")
                return
            }
            #expect(records.count == 8192 && records.last?["n"] == 8191)
            #expect(
                seen.log == [
                    "request on a loop: true", "complete on a loop: false",
                    "the loop answered while the body was decoded: true",
                ]
            )
            try await adapter.shutdown()
            try await server.shutdown()
        }

        /// Issue 48, point 3: a disk cache's writes run off the loop. While the disk holds a write
        /// up (here, until the test lets it go), the call's loop answers, and the entry is stored
        /// once the disk goes on.
        @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
        @Test func aDiskCachesWritesRunOffTheLoop() async throws {
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let adapter = NIOAdapter(configuration: NIOAdapter.Configuration(), group: group)
            let server = try await TestServer.start()
            let directory = FileManager.default.temporaryDirectory.appending(path: "faraday-cache-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let writing = DispatchSemaphore(value: 0)
            let disk = DispatchSemaphore(value: 0)  // signalled once, it stays open
            let store = try DiskCacheStore(directory: directory) {
                writing.signal()
                _ = disk.wait(timeout: .now() + 60)
                disk.signal()
            }
            let connection = try Connection(url: server.baseURL.absoluteString) { builder in
                builder.use(HTTPCache.Handler(store: store))
                builder.adapter = adapter
            }
            let first = Task { try await connection.get("bytes/4096?max-age=60").value }
            // Bounds on waits that cannot end if the write holds the loop, not measures of speed.
            #expect(await Self.wait(for: writing), "the body reached the store")
            let answered = DispatchSemaphore(value: 0)
            group.next().execute { answered.signal() }
            #expect(await Self.wait(for: answered), "the loop answered while the disk held a write")
            disk.signal()
            #expect(try await first.value.cacheStatus == .miss)
            let second = try await connection.get("bytes/4096?max-age=60").value
            #expect(second.cacheStatus == .hit && second.body.count == 4096)
            #expect(server.requestsReceived == 1)
            try await adapter.shutdown()
            try await server.shutdown()
            try await group.shutdownGracefully()
        }

        /// A body arriving faster than the disk takes it is held back past 8 MiB queued by a
        /// suspension of the call, not by blocking its thread: while the disk holds every write,
        /// a 12 MiB body (buffered or streamed) stalls, the loop answers, and the entry is stored
        /// whole once the disk goes on.
        @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
        @Test(arguments: [false, true])
        func aDiskBehindTheNetworkHoldsTheCallBackNotTheLoop(streamed: Bool) async throws {
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let adapter = NIOAdapter(configuration: NIOAdapter.Configuration(), group: group)
            let server = try await TestServer.start()
            let directory = FileManager.default.temporaryDirectory.appending(path: "faraday-cache-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let disk = DispatchSemaphore(value: 0)  // signalled once, it stays open
            let store = try DiskCacheStore(directory: directory) {
                _ = disk.wait(timeout: .now() + 60)
                disk.signal()
            }
            let connection = try Connection(url: server.baseURL.absoluteString) { builder in
                builder.use(HTTPCache.Handler(store: store, maximumBodySize: 16 << 20))
                builder.adapter = adapter
            }
            let path = "bytes/\(12 << 20)?max-age=60"
            // The completions are pulled on the loop: by `value`, and by the callbacks' task.
            let call = connection.get(path, streaming: streamed ? .chunks : nil)
            let streamedBytes = Locked(0)
            if streamed { call.onComplete { env in streamedBytes.withLock { $0 += env.body.count } } }
            let first = Task { try await call.value }
            // Bounds on waits that cannot end if the disk's wait holds the loop, not measures of speed.
            let held = Task.detached {
                for _ in 0..<600 {
                    if store.writes.pendingBytes > 8 << 20, store.writes.waitingReaders == 1 { return true }
                    try? await Task.sleep(for: .milliseconds(50))
                }
                return false
            }
            #expect(await held.value, "more than 8 MiB reached the store, and the call's reader waits for room")
            if streamed {
                let pending = store.writes.pendingBytes
                #expect(pending < 12 << 20, "the reader stopped taking the streamed body while the disk was behind")
            }
            let answered = DispatchSemaphore(value: 0)
            group.next().execute { answered.signal() }
            #expect(await Self.wait(for: answered), "the loop answered while the disk was 8 MiB behind")
            disk.signal()
            let firstBody = try await first.value.body.count
            #expect((streamed ? streamedBytes.withLock { $0 } : firstBody) == 12 << 20)
            let second = try await connection.get(path).value
            #expect(second.cacheStatus == .hit && second.body.count == 12 << 20)
            #expect(server.requestsReceived == 1)
            try await adapter.shutdown()
            try await server.shutdown()
            try await group.shutdownGracefully()
        }

        /// Waits up to 30 seconds for `semaphore` on a thread of its own, not the test's.
        private static func wait(for semaphore: DispatchSemaphore) async -> Bool {
            await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    continuation.resume(returning: semaphore.wait(timeout: .now() + 30) == .success)
                }
            }
        }

        /// `wait()` on one of the adapter's event loops would block the thread its call needs: it
        /// throws `wouldDeadlock` at once, on a loop task and in a callback (which NIOAdapter runs
        /// on the loop), and still waits from any other thread.
        @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
        @Test(arguments: AdapterKind.onNIO)
        func waitOnTheAdaptersEventLoopThrowsInsteadOfHanging(kind: AdapterKind) async throws {
            let server = try await TestServer.start()
            let adapter = try kind.makeAdapter()
            let connection = try Connection(url: server.baseURL.absoluteString) { $0.adapter = adapter }
            // The bound ends a wait that hangs, for the test to fail instead; it measures nothing.
            let waitFor = { @Sendable (response: Response) in
                Result { () throws(FaradayError) in try response.wait(timeout: .seconds(20)) }
            }
            let refused = connection.get("echo")
            let onALoop = await withCheckedContinuation { continuation in
                MultiThreadedEventLoopGroup.singleton.next().execute {
                    continuation.resume(returning: waitFor(refused))
                }
            }
            #expect(Self.code(of: onALoop) == .wouldDeadlock, "\(kind)")
            // The refused call ended unsent: awaiting it now gives the same error, not a response.
            #expect(refused.isFinished)
            if refused.isFinished {  // (else awaiting it would wait for a call nobody runs)
                do {
                    _ = try await refused.value
                    Issue.record("the refused call was sent after all")
                } catch {
                    #expect(error.code == .wouldDeadlock)
                }
            }
            if kind == .nio {
                let inACallback = await withCheckedContinuation { continuation in
                    let first = connection.get("echo")
                    first.onSuccess { _ in
                        // The finished call's own wait returns at once; a new call's is refused.
                        let own = waitFor(first)
                        continuation.resume(returning: (own, waitFor(connection.get("echo"))))
                    }
                }
                #expect(try inACallback.0.get().status == .ok, "a finished call is waited for on its loop")
                #expect(Self.code(of: inACallback.1) == .wouldDeadlock)
            }
            let elsewhere = await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    continuation.resume(returning: waitFor(connection.get("echo")))
                }
            }
            #expect(try elsewhere.get().status == .ok, "a thread of no loop waits as before")
            // Sent: the callback's call and the last one; never a refused one.
            #expect(server.requestsReceived == (kind == .nio ? 2 : 1))
            try await shutDown(adapter)
            try await server.shutdown()
        }

        private static func code(of result: Result<Env, FaradayError>) -> FaradayError.Code? {
            guard case .failure(let error) = result else { return nil }
            return error.code
        }

        /// At most `maximumConnectionsPerHost` connections to one origin on a loop; the calls
        /// beyond wait for one and reuse it.
        @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
        @Test func callsBeyondTheHostsConnectionsWaitForOne() async throws {
            try await Self.withLimitedAdapter(loops: 1, limit: 2) { connection, server, _ in
                let answers = try await withThrowingTaskGroup(of: Int?.self) { calls in
                    for _ in 0..<6 { calls.addTask { try await connection.get("delay/50").value.status?.code } }
                    return try await calls.reduce(into: [Int?]()) { $0.append($1) }
                }
                #expect(answers == Array(repeating: 200, count: 6))
                #expect(server.connectionsAccepted == 2)
            }
        }

        /// The limit per host bounds the connections across the loops: it is split among them
        /// (3 on 2 loops: 2 and 1), so that calls from both loops at once open 3 connections and
        /// never have more than 3 requests at the server; with more loops than the limit (1 on
        /// 2), the calls of both loops run on the one loop that has a part.
        @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
        @Test(arguments: [1, 3])
        func theLimitPerHostBoundsTheConnectionsAcrossTheLoops(limit: Int) async throws {
            try await Self.withLimitedAdapter(loops: 2, limit: limit) { connection, server, group in
                let loops = Array(group.makeIterator())
                let answers = try await withThrowingTaskGroup(of: Int?.self) { calls in
                    for index in 0..<12 {
                        // Callers on each loop of the group in turn.
                        calls.addTask(executorPreference: EventLoopExecutor(loop: loops[index % 2])) {
                            // The deadline fails a call that would wait for ever (on a loop with no part).
                            let env = try await connection.get("delay/200") { $0.options.timeout = .seconds(20) }.value
                            return env.status?.code
                        }
                    }
                    return try await calls.reduce(into: [Int?]()) { $0.append($1) }
                }
                #expect(answers == Array(repeating: 200, count: 12))
                #expect(server.connectionsAccepted == limit, "each loop opened its part, in overlapping calls")
                #expect(server.peakRequestsInFlight <= limit, "never more requests at once than the limit")
            }
        }

        /// A call whose loop has all its share of connections in use starts on a loop with room
        /// instead of waiting: with a limit of 2 on 2 loops (one each), a second call made on the
        /// first call's loop while that call is at the server runs beside it on the other loop.
        @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
        @Test func aCallStartsOnALoopWithRoomRatherThanWait() async throws {
            try await Self.withLimitedAdapter(loops: 2, limit: 2) { connection, server, group in
                let loop = EventLoopExecutor(loop: group.next())
                let first = Task(executorPreference: loop) { try await connection.get("delay/1000").value }
                try await waitUntil { server.requestsReceived == 1 }
                let second = try await Task(executorPreference: loop) { try await connection.get("echo").value }.value
                #expect(second.status == .ok)
                #expect(server.connectionsAccepted == 2, "the second call opened the other loop's connection")
                #expect(try await first.value.status == .ok)
            }
        }

        /// A connection to a new test server through an adapter on a group of `loops` loops with
        /// `limit` connections per host, all shut down after `body`.
        @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
        private static func withLimitedAdapter(
            loops: Int,
            limit: Int,
            _ body: (Connection, TestServer, MultiThreadedEventLoopGroup) async throws -> Void
        ) async throws {
            let group = MultiThreadedEventLoopGroup(numberOfThreads: loops)
            var configuration = NIOAdapter.Configuration()
            configuration.maximumConnectionsPerHost = limit
            let adapter = NIOAdapter(configuration: configuration, group: group)
            let server = try await TestServer.start()
            let connection = try Connection(url: server.baseURL.absoluteString) { $0.adapter = adapter }
            try await body(connection, server, group)
            try await adapter.shutdown()
            try await server.shutdown()
            try await group.shutdownGracefully()
        }

        /// A connection idle for the idle timeout is closed, and the next call opens another.
        @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
        @Test func anIdleConnectionClosesAfterTheIdleTimeout() async throws {
            var configuration = NIOAdapter.Configuration()
            configuration.idleTimeout = .milliseconds(50)
            let adapter = NIOAdapter(configuration: configuration)
            let server = try await TestServer.start()
            let connection = try Connection(url: server.baseURL.absoluteString) { $0.adapter = adapter }
            _ = try await connection.get("echo").value
            try await waitUntil { server.connectionsClosed == 1 }
            _ = try await connection.get("echo").value
            #expect(server.connectionsAccepted == 2)
            try await adapter.shutdown()
            try await server.shutdown()
        }

        /// A cancelled call's connection is closed, never handed to the next call mid-response.
        @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
        @Test func aCancelledCallsConnectionIsNotReused() async throws {
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let adapter = NIOAdapter(configuration: NIOAdapter.Configuration(), group: group)
            let server = try await TestServer.start()
            let connection = try Connection(url: server.baseURL.absoluteString) { $0.adapter = adapter }
            let stalled = connection.get("stall") { $0.options.streaming = .chunks }
            _ = try await stalled.head
            stalled.cancel()
            let echo = try await connection.get("echo").echo
            #expect(echo.path == "/echo")
            #expect(server.connectionsAccepted == 2)
            try await adapter.shutdown()
            try await server.shutdown()
            try await group.shutdownGracefully()
        }

        /// One loop, one connection to the host, no read timeout: a call that held its place
        /// by mistake would make the next call to the host wait forever.
        private func singlePlace(
            _ configure: (inout NIOAdapter.Configuration) -> Void = { _ in }
        ) -> (
            NIOAdapter, MultiThreadedEventLoopGroup
        ) {
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            var configuration = NIOAdapter.Configuration()
            configuration.maximumConnectionsPerHost = 1
            configuration.readTimeout = nil
            configure(&configuration)
            return (NIOAdapter(configuration: configuration, group: group), group)
        }

        /// A one-shot body already sent fails the next call that needs it, and that call leaves
        /// its connection free (it took the stream only after leasing one, and held it).
        @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
        @Test func aBodyThatCannotBeSentHoldsNoConnection() async throws {
            let (adapter, group) = singlePlace()
            let server = try await TestServer.start()
            let connection = try Connection(url: server.baseURL.absoluteString) { $0.adapter = adapter }
            let body = RequestBody.stream(
                AsyncStream {
                    $0.yield(Data("once".utf8))
                    $0.finish()
                },
                length: 4
            )
            _ = try await connection.post("upload", body: body).value
            await #expect { try await connection.post("upload", body: body).value } throws: {
                isFaradayError($0, .bodyNotReplayable)
            }
            #expect(try await connection.get("echo").value.status == .ok)
            try await adapter.shutdown()
            try await server.shutdown()
            try await group.shutdownGracefully()
        }

        /// The read timeout is the server's silence once the request is sent: an upload that
        /// takes longer than it is not cut.
        @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
        @Test func anUploadLongerThanTheReadTimeoutIsNotCut() async throws {
            let adapter = NIOAdapter()
            let server = try await TestServer.start()
            let connection = try Connection(url: server.baseURL.absoluteString) { $0.adapter = adapter }
            let chunks = AsyncStream<Data> { continuation in
                Task {
                    for _ in 0..<6 {
                        continuation.yield(Data(repeating: 0x61, count: 1000))
                        try? await Task.sleep(for: .milliseconds(100))
                    }
                    continuation.finish()
                }
            }
            let env = try await connection.post("upload", body: .stream(chunks, length: 6000)) {
                $0.options.readTimeout = .milliseconds(200)
            }.value
            #expect(env.status == .ok)
            #expect(env.body.count > 0 && String(decoding: env.body, as: UTF8.self).contains(#""bytes":6000"#))
            try await adapter.shutdown()
            try await server.shutdown()
        }

        /// A call waiting for a free connection gives up at its deadline.
        @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
        @Test func theWaitForAConnectionEndsAtTheCallsDeadline() async throws {
            let (adapter, group) = singlePlace()
            let server = try await TestServer.start()
            let connection = try Connection(url: server.baseURL.absoluteString) { $0.adapter = adapter }
            let stalled = connection.get("stall") { $0.options.streaming = .chunks }
            _ = try await stalled.head
            await #expect {
                try await connection.get("echo") { $0.options.timeout = .milliseconds(200) }.value
            } throws: { isFaradayError($0, .callTimeout) }
            stalled.cancel()
            #expect(try await connection.get("echo").value.status == .ok)
            try await adapter.shutdown()
            try await server.shutdown()
            try await group.shutdownGracefully()
        }
    }
}
