import Foundation
import HTTPTypes

@testable import Faraday

/// A clock the tests move by hand.
final class TestClock: Sendable {
    private let date = Locked(Date(timeIntervalSince1970: 1_700_000_000))
    var now: Date { date.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { date.withLock { $0 += seconds } }
}

/// `date` as an IMF-fixdate (`Tue, 14 Nov 2023 22:13:20 GMT`).
func httpDate(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    return formatter.string(from: date)
}

/// An origin server on the TestAdapter whose answers a test script by call number, with the
/// requests it received.
struct CachedOrigin {
    let adapter = TestAdapter()
    let clock = TestClock()

    /// Answers `GET|POST … /path` by `answer(call number from 1, request)`.
    func route(
        _ path: String,
        method: HTTPRequest.Method = .get,
        _ answer: @escaping @Sendable (Int, Request) throws -> StubResponse
    ) {
        let calls = Locked(0)
        adapter.stub(method, .path(path)) { env, _ in try answer(calls.increment(), env.request) }
    }

    /// Headers with `Date: now` and the given fields.
    func headers(_ fields: [(String, String)]) -> HTTPFields {
        var headers = HTTPFields()
        headers[.date] = httpDate(clock.now)
        for (name, value) in fields { headers.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        return headers
    }

    func connection(
        _ store: any CacheStore = MemoryCacheStore(),
        above: [any Handler] = [],
        below: [any Handler] = [],
        configure: (inout HTTPCache.Handler) -> Void = { _ in }
    ) throws -> (Connection, HTTPCache.Handler) {
        let clock = self.clock
        var cache = HTTPCache.Handler(store: store, now: { clock.now })
        configure(&cache)
        let connection = try Connection(url: "https://api.example.com/v1") { builder in
            for handler in above { builder.use(handler) }
            builder.use(cache)
            for handler in below { builder.use(handler) }
            builder.adapter = adapter
        }
        return (connection, cache)
    }

    /// How many requests reached the server.
    var requests: [Request] { adapter.calls }
}
