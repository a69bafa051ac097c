// Using Faraday from code that is not async: a background thread that blocks on each call with
// `wait(timeout:)`, and completion handlers for callers that must not block. Runs against a local
// server.
//
//     swift run SynchronousUse
//
// `wait(timeout:)` blocks the calling thread only. Never call it from a Swift concurrency task
// (the compiler refuses it in async code): it would hold one of the shared pool's few threads.
import Dispatch
import Faraday
import FaradayTestSupport
import Foundation

struct Echo: Decodable {
    let method: String
    let uri: String
}

/// A synchronous client, as legacy code or a C callback might need: each method blocks its thread.
struct BlockingClient: Sendable {
    let connection: Connection

    func echo(_ greeting: String) throws -> Echo {
        let env = try connection.get("echo", params: ["greeting": .string(greeting)]).wait(timeout: .seconds(10))
        return try JSONDecoder().decode(Echo.self, from: env.body)
    }

    func slow(milliseconds: Int, timeout: Duration) throws(FaradayError) -> Int {
        let env = try connection.get("delay/\(milliseconds)").wait(timeout: timeout)
        return env.status?.code ?? 0
    }
}

/// Runs `body` on a thread of its own and waits, without blocking, until it returns.
func onBackgroundThread(_ body: @escaping @Sendable () -> Void) async {
    await withCheckedContinuation { continuation in
        Thread {
            body()
            continuation.resume()
        }.start()
    }
}

/// A thread of its own, blocking on each call in turn.
func blockingCalls(_ client: BlockingClient) async {
    await onBackgroundThread {
        print("On a background thread (main thread: \(Thread.isMainThread)):")
        do {
            for greeting in ["hello", "bonjour"] {
                let echo = try client.echo(greeting)
                print("  \(echo.method) \(echo.uri)")
            }
            print("  /delay/50 with a 5 s limit: status \(try client.slow(milliseconds: 50, timeout: .seconds(5)))")
        } catch {
            print("  failed: \(error)")
        }
        do throws(FaradayError) {
            _ = try client.slow(milliseconds: 5_000, timeout: .milliseconds(200))
        } catch {
            print("  /delay/5000 with a 200 ms limit: \(error.code), the call was cancelled")
        }
    }
}

/// Completion handlers: nothing blocks; the callbacks run on Faraday's threads when a call ends.
func completionHandlers(_ connection: Connection) async {
    print("With completion handlers:")
    let group = DispatchGroup()
    for path in ["echo", "status/404"] {
        group.enter()
        connection.get(path)
            .onSuccess { env in
                print("  \(path): \(env.status?.code ?? 0)")
                group.leave()
            }
            .onFailure { error in
                print("  \(path): \(error.code) (\(error.status?.code ?? 0))")
                group.leave()
            }
    }
    await withCheckedContinuation { continuation in
        group.notify(queue: .global()) { continuation.resume() }
    }
}

// The work is in functions: closures written at the top level of main.swift belong to the main
// actor, and Faraday calls callbacks on its own threads.
let server = try await TestServer.start()
let connection = try Connection(url: server.baseURL.absoluteString) { builder in
    builder.use(RaiseError.Handler())
    builder.adapter = URLSessionAdapter()
}
await blockingCalls(BlockingClient(connection: connection))
await completionHandlers(connection)
try await server.shutdown()
