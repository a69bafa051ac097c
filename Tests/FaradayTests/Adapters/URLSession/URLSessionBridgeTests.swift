import Foundation
import Testing

@testable import Faraday

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// URLSessionAdapter's bridge between a task's delegate callbacks and the call, driven by hand.
@Suite(.timeLimit(.minutes(1))) struct URLSessionBridgeTests {
    private func bridge() throws -> URLSessionTaskBridge {
        let request = Request(method: .get, url: try #require(URL(string: "http://127.0.0.1/")))
        return URLSessionTaskBridge(env: Env(request: request), temporaryFile: nil)
    }

    /// Issue 45: the call timeout's closure held the bridge, and its buffered body of up to
    /// 64 MiB, until the timeout passed.
    @Test func aPendingCallTimerHoldsNoBridge() throws {
        #expect(try isFreed { $0.startCallTimer(.seconds(3600), error: FaradayError(.callTimeout, "Too slow.")) })
    }

    @Test func aPendingIdleTimerHoldsNoBridge() throws {
        #expect(try isFreed { $0.startIdleTimer(.seconds(3600), error: FaradayError(.readTimeout, "Silent.")) })
    }

    /// Whether a bridge is freed once its last holder lets it go after `start`ing a timer on it.
    private func isFreed(afterStarting start: (URLSessionTaskBridge) -> Void) throws -> Bool {
        var bridge: URLSessionTaskBridge? = try bridge()
        weak let held = bridge
        if let bridge { start(bridge) }
        bridge = nil
        return held == nil
    }

    @Test(
        arguments: [
            ("http/1.0", "1.0"), ("http/1.1", "1.1"), ("HTTP/1.1", "1.1"), ("h2", "2"), ("h3", "3"), ("h3-29", "3"),
            ("spdy/3", nil), ("", nil),
        ] as [(String, String?)]
    )
    func anALPNNameIsAnHTTPVersion(_ name: String, _ version: String?) {
        #expect(URLSessionAdapter.httpVersion(alpn: name) == version)
    }

    /// Issue 45: where the platform names the protocol before the end (Apple platforms' task
    /// metrics), a buffered response reports it.
    @Test func aBufferedHeadCarriesTheVersionTheMetricsNamed() async throws {
        let bridge = try bridge()
        let url = try #require(URL(string: "http://127.0.0.1/"))
        let response = try #require(HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: [:]))
        bridge.didReceive(response: response)
        bridge.didCollect(networkProtocol: "h2")
        bridge.didComplete(error: nil)
        #expect(try await bridge.head().httpVersion == "2")
    }

    /// Issue 45: FoundationNetworking hands a 3xx it cannot follow (no `Location`) to no
    /// delegate method but the last; the call gets it as its response, not `badServerResponse`.
    @Test func aResponseKnownOnlyAtTheEndIsTheHead() async throws {
        let bridge = try bridge()
        let url = try #require(URL(string: "http://127.0.0.1/"))
        let response = try #require(HTTPURLResponse(url: url, statusCode: 301, httpVersion: nil, headerFields: [:]))
        bridge.didReceiveIfFirst(response: response)
        bridge.didComplete(error: nil)
        #expect(try await bridge.head().response.statusCode == 301)
    }

    /// A cancel that comes after the end reaches no task (FoundationNetworking traps on a task
    /// cancelled as it leaves its registry), and a second cancel is not sent.
    @Test func aCancelIsSentOnceAndNeverAfterTheEnd() throws {
        let url = try #require(URL(string: "http://127.0.0.1:9/"))
        let cancels = Locked(0)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }

        let running = try bridge()
        running.attach(session.dataTask(with: url), delegateQueue: queue) {
            cancels.withLock { $0 += 1 }
            return false  // counted, never sent: the task was never resumed
        }
        running.cancel()
        running.cancel()
        running.fail(FaradayError(.callTimeout, "late"))
        queue.waitUntilAllOperationsAreFinished()
        #expect(cancels.withLock { $0 } == 1)

        let ended = try bridge()
        ended.attach(session.dataTask(with: url), delegateQueue: queue) {
            cancels.withLock { $0 += 1 }
            return false
        }
        ended.didComplete(error: nil)
        ended.cancel()
        queue.waitUntilAllOperationsAreFinished()
        #expect(cancels.withLock { $0 } == 1, "no cancel after the end")
    }
}
