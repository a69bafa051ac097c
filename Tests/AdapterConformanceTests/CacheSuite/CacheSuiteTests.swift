import Faraday
import FaradayAsyncHTTPClient
import FaradayTestSupport
import Foundation
import Testing

/// The HTTP caching community's test suite (http-tests/cache-tests, the suite behind
/// cache-tests.fyi) against ``HTTPCache``: its 333 tests for a private cache, through the public
/// API on the AsyncHTTPClient adapter, against the suite's server played in process.
@Suite(.timeLimit(.minutes(5))) struct CacheSuiteTests {
    enum StoreKind: String, CaseIterable, Sendable {
        case memory, disk
    }

    /// Every test of the private-cache set, eight at a time; the counts by kind are printed, and
    /// the outcome of each test must be the one listed (`CacheSuiteExpectations`).
    @Test(arguments: StoreKind.allCases)
    func thePrivateCacheTestsOfTheCachingSuite(_ storeKind: StoreKind) async throws {
        let tests = try CacheSuiteTest.privateCacheTests()
        #expect(tests.count == 333)
        let server = try await CacheSuiteServer.start()
        let adapter = AsyncHTTPClientAdapter()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cache-suite-\(UUID())")
        let runner = CacheSuiteRunner(server: server, adapter: adapter) {
            switch storeKind {
            case .memory: MemoryCacheStore()
            case .disk: try DiskCacheStore(directory: directory.appendingPathComponent(UUID().uuidString))
            }
        }
        let outcomes = await withTaskGroup(of: (CacheSuiteTest, CacheSuiteOutcome).self) { group in
            var outcomes: [String: (CacheSuiteTest, CacheSuiteOutcome)] = [:]
            var pending = tests[...]
            for _ in 0..<8 {
                guard let test = pending.popFirst() else { break }
                group.addTask { (test, await runner.run(test)) }
            }
            while let (test, outcome) = await group.next() {
                outcomes[test.id] = (test, outcome)
                if let next = pending.popFirst() { group.addTask { (next, await runner.run(next)) } }
            }
            return outcomes
        }
        try await adapter.shutdown()
        try await server.shutdown()
        try? FileManager.default.removeItem(at: directory)

        var summary: [String] = []
        for kind in CacheSuiteTest.Kind.allCases {
            let ofKind = outcomes.values.filter { $0.0.kind == kind }
            let passed = ofKind.filter { $0.1.passed }.count
            summary.append("\(kind.rawValue) \(passed)/\(ofKind.count)")
        }
        let passed = outcomes.values.filter { $0.1.passed }.count
        print(
            "cache-tests (\(storeKind.rawValue) store): \(passed)/\(outcomes.count) pass; \(summary.joined(separator: ", "))"
        )
        for (id, (test, outcome)) in outcomes.sorted(by: { $0.key < $1.key }) where !outcome.passed {
            print("  \(test.kind.rawValue) \(id): \(outcome)")
        }
        let unexpected = outcomes.filter { id, entry in
            entry.1.passed == CacheSuiteExpectations.failing.keys.contains(id)
        }
        #expect(unexpected.isEmpty, "outcomes other than listed: \(unexpected.keys.sorted())")
    }
}
