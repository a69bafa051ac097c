import Faraday
import FaradayTestSupport
import Foundation
import Testing

extension AdapterConformance {
    /// `HTTPCache` over each adapter against the in-process server, which answers `/cached` as
    /// nginx answers a static file (validators, `Date`, 304 to a matching conditional request).
    // The hang guard leaves room for the gigabyte test below: two gigabytes through the disk take
    // 12 s alone and up to 68 s with the whole suite beside it on two cores.
    @Suite(.timeLimit(.minutes(3))) struct CachingTests {
        @Test(arguments: AdapterKind.allCases)
        func aFreshResponseIsServedWithoutAskingTheServer(_ kind: AdapterKind) async throws {
            try await withConnection(kind, handlers: [HTTPCache.Handler()]) { connection, server in
                let key = UUID().uuidString
                let first = try await connection.get("cached?key=\(key)").value
                let second = try await connection.get("cached?key=\(key)").value
                #expect(first.cacheStatus == .miss && second.cacheStatus == .hit)
                #expect(second.response?.text == "request 1" && second.responseHeaders[.eTag] == #""v1""#)
                #expect(server.cachedAnswers(key: key) == ["200"])
            }
        }

        @Test(arguments: AdapterKind.allCases, [true, false])
        func aStaleResponseIsRevalidatedAndTheServerSeesAConditionalRequest(
            _ kind: AdapterKind,
            _ withETag: Bool
        ) async throws {
            try await withConnection(kind, handlers: [HTTPCache.Handler()]) { connection, server in
                let key = UUID().uuidString
                let path = "cached?key=\(key)&max-age=0" + (withETag ? "" : "&etag=no")
                _ = try await connection.get(path).value
                let second = try await connection.get(path).value
                #expect(second.cacheStatus == .revalidated && second.status == .ok)
                #expect(second.response?.text == "request 1")
                #expect(server.cachedAnswers(key: key) == ["200", "304"])
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func varyByAcceptKeepsAVariantPerValue(_ kind: AdapterKind) async throws {
            try await withConnection(kind, handlers: [HTTPCache.Handler()]) { connection, server in
                let key = UUID().uuidString
                var answers: [String] = []
                for accept in ["text/csv", "application/json", "text/csv", "application/json"] {
                    let env = try await connection.get("cached?key=\(key)&vary=accept", headers: [.accept: accept])
                        .value
                    answers.append(env.response?.text ?? "")
                }
                #expect(
                    answers == [
                        "request 1 for text/csv", "request 2 for application/json",
                        "request 1 for text/csv", "request 2 for application/json",
                    ]
                )
                #expect(server.cachedAnswers(key: key).count == 2)
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func aDiskStoreServesAnotherConnectionOfTheSameDirectory(_ kind: AdapterKind) async throws {
            let directory = FileManager.default.temporaryDirectory.appending(path: "faraday-cache-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let key = UUID().uuidString
            try await withConnection(
                kind,
                handlers: [HTTPCache.Handler(store: try DiskCacheStore(directory: directory))]
            ) {
                connection,
                server in
                _ = try await connection.get("cached?key=\(key)").value
                let other = try Connection(url: server.baseURL.absoluteString) { builder in
                    builder.use(HTTPCache.Handler(store: try DiskCacheStore(directory: directory)))
                    builder.adapter = TestAdapter()  // a request reaching it would fail: no stub
                }
                let env = try await other.get("cached?key=\(key)").value
                #expect(env.cacheStatus == .hit && env.response?.text == "request 1")
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func aGigabyteIsCachedToDiskAsItStreamsAndServedFromThereWithBoundedMemory(_ kind: AdapterKind) async throws {
            let directory = FileManager.default.temporaryDirectory.appending(path: "faraday-cache-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let total = 1 << 30
            let cache = HTTPCache.Handler(
                store: try DiskCacheStore(directory: directory, capacity: 2 << 30),
                maximumBodySize: .max
            )
            try await withConnection(kind, handlers: [cache]) { connection, server in
                let before = residentMemory()
                var peak = before
                for round in 1...2 {
                    var received = 0
                    var patternHolds = true
                    // URLSession on Linux cannot pause a transfer: while the disk takes its time,
                    // what curl reads queues up (the memory bound below is not checked for it).
                    let queue = kind == .urlSession && !platformCanPauseURLSession ? 2 << 30 : 128 << 20
                    let response = connection.get("bytes/\(total)?max-age=600") {
                        $0.options.streaming = .chunks
                        $0.options.maxBufferedBodySize = queue
                    }
                    for try await env in response.completions {
                        #expect(env.cacheStatus == (round == 1 ? .miss : .hit))
                        let body = env.body
                        if let first = body.first, first != UInt8(received % 251) { patternHolds = false }
                        received += body.count
                        if received % (64 << 20) < body.count { peak = max(peak, residentMemory()) }
                    }
                    #expect(received == total && patternHolds)
                }
                #expect(server.requestsReceived == 1, "the second gigabyte came from the disk")
                if kind.isOnNIO || platformCanPauseURLSession {
                    #expect(peak - before < 256 << 20, "resident memory grew by \((peak - before) >> 20) MiB")
                }
            }
        }

        /// A download cut off halfway (the server closes the connection after 100,000 of 300,000
        /// bytes, as nginx behind a flaky network) is kept as the part that arrived, and the next
        /// GET asks only for the rest, with `If-Range`, and gets the whole.
        @Test(arguments: AdapterKind.allCases)
        func aDownloadCutOffIsResumedFromTheCache(_ kind: AdapterKind) async throws {
            try await withConnection(kind, handlers: [HTTPCache.Handler()]) { connection, server in
                let key = UUID().uuidString
                let path = "download/300000?key=\(key)&cut=100000"
                await #expect(throws: FaradayError.self) { try await connection.get(path, streaming: .chunks).value }
                let resumed = try await connection.get(path).value
                #expect(resumed.cacheStatus == .resumed && resumed.status == .ok)
                #expect(resumed.body.count == 300_000)
                #expect(resumed.body.enumerated().allSatisfy { $0.element == UInt8($0.offset % 251) })
                // What arrived before the cut is kept; AsyncHTTPClient may drop what it had read
                // ahead of the consumer when the connection failed.
                let requests = server.downloadRequests(key: key)
                #expect(requests.count == 2 && requests.first == "whole")
                let kept = try #require(requests.last.flatMap { Int($0.dropFirst(6).dropLast()) })
                #expect(kept > 0 && kept <= 100_000)
                #expect(try await connection.get(path).value.cacheStatus == .hit)
                #expect(server.downloadRequests(key: key).count == 2)
            }
        }
    }
}
