// Testing a client with stubs: the client takes its adapter from the caller, so a test gives it a
// TestAdapter with stubbed answers and checks what the client sent and what it made of the answers;
// then a cassette that records answers once and replays them, and stubs that let other requests
// through. No socket is opened.
//
//     swift run TestingWithStubs
//
// In a test target the checks below would be `#expect`s; here they print and set the exit status.
import Faraday
import Foundation

// MARK: The client under test

struct Forecast: Decodable, Equatable, Sendable {
    let city: String
    let celsius: Double
}

/// A small client of a weather service: retries a 503 once, turns error statuses into errors.
struct WeatherClient: Sendable {
    let connection: Connection

    init(token: String, adapter: any Adapter) throws {
        connection = try Connection(url: "https://weather.example.com/v2") { builder in
            builder.use(Authorization.Handler(.bearer(token)))
            // Either order works: Retry decides on the head, before RaiseError's hook raises.
            builder.use(RaiseError.Handler())
            builder.use(Retry.Handler(maxAttempts: 2, backoff: .none, statuses: [503]))
            builder.adapter = adapter
        }
    }

    func forecast(for city: String) async throws(FaradayError) -> Forecast {
        try await connection.get("forecast", params: ["city": .string(city)]).decode(Forecast.self)
    }

    func report(_ forecast: Forecast) async throws(FaradayError) {
        _ = try await connection.post("reports", body: .text(#"{"city":"\#(forecast.city)"}"#)).value
    }
}

// MARK: Checks

/// A count that any task can add to.
final class Counter: @unchecked Sendable {
    // `@unchecked Sendable`: `value` is only touched with `lock` held.
    private let lock = NSLock()
    private var value = 0

    /// Adds one and returns the new count.
    @discardableResult
    func increment() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }

    /// The count now.
    var current: Int {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}

/// Collects the checks' results.
final class Checks: Sendable {
    private let failures = Counter()

    func expect(_ condition: Bool, _ what: String) {
        print("  \(condition ? "ok  " : "FAIL") \(what)")
        if !condition { failures.increment() }
    }

    /// Runs one scenario; an error it does not expect counts as a failure.
    func scenario(_ title: String, _ body: () async throws -> Void) async {
        print(title)
        do {
            try await body()
        } catch {
            expect(false, "unexpected error: \(error)")
        }
    }

    var failed: Int { failures.current }
}

let checks = Checks()

await checks.scenario("A forecast is fetched with the token and decoded") {
    let stubs = TestAdapter(strictMode: true)
    stubs.get("/v2/forecast", query: ["city": "Lyon"], headers: [.authorization: "Bearer s3cret"]) { _, _ in
        StubResponse(headers: [.contentType: "application/json"], body: #"{"city":"Lyon","celsius":21.5}"#)
    }
    let client = try WeatherClient(token: "s3cret", adapter: stubs)
    let forecast = try await client.forecast(for: "Lyon")
    checks.expect(forecast == Forecast(city: "Lyon", celsius: 21.5), "decoded \(forecast)")
    checks.expect(stubs.calls.count == 1, "one request sent")
    try stubs.verifyStubbedCalls()
}

await checks.scenario("A 503 is retried once, then the answer is used") {
    let stubs = TestAdapter()
    let attempts = Counter()
    stubs.get("/v2/forecast") { _, _ in
        let attempt = attempts.increment()
        return attempt == 1
            ? StubResponse(status: .serviceUnavailable, body: "busy")
            : StubResponse(body: #"{"city":"Oslo","celsius":-3}"#)
    }
    let client = try WeatherClient(token: "t", adapter: stubs)
    let forecast = try await client.forecast(for: "Oslo")
    checks.expect(forecast.celsius == -3, "decoded after the retry")
    checks.expect(stubs.calls.count == 2, "two requests sent")
}

await checks.scenario("A 404 becomes a typed error carrying the response") {
    let stubs = TestAdapter()
    stubs.get("/v2/forecast") { _, _ in StubResponse(status: .notFound, body: "no such city") }
    let client = try WeatherClient(token: "t", adapter: stubs)
    do throws(FaradayError) {
        _ = try await client.forecast(for: "Atlantis")
        checks.expect(false, "the call should have failed")
    } catch {
        checks.expect(error.code == .resourceNotFound, "error code \(error.code)")
        checks.expect(error.response?.text == "no such city", "the body is kept for the report")
    }
}

await checks.scenario("A malformed body is a parsing error, not a crash") {
    let stubs = TestAdapter()
    stubs.get("/v2/forecast") { _, _ in StubResponse(body: #"{"city":"Lyon","celsius":"warm"}"#) }
    let client = try WeatherClient(token: "t", adapter: stubs)
    do throws(FaradayError) {
        _ = try await client.forecast(for: "Lyon")
        checks.expect(false, "the call should have failed")
    } catch {
        checks.expect(error.code == .parsingFailed, "error code \(error.code)")
    }
}

await checks.scenario("A report sends the expected body, and a POST is not retried") {
    let stubs = TestAdapter()
    stubs.post("/v2/reports", body: .equals(#"{"city":"Lyon"}"#)) { _, _ in
        StubResponse(status: .serviceUnavailable)
    }
    let client = try WeatherClient(token: "t", adapter: stubs)
    do throws(FaradayError) {
        try await client.report(Forecast(city: "Lyon", celsius: 20))
        checks.expect(false, "the call should have failed")
    } catch {
        checks.expect(error.code == .serverError, "error code \(error.code)")
        checks.expect(stubs.calls.count == 1, "sent once")
    }
}

await checks.scenario("A request no stub matches fails, naming the closest stub") {
    let stubs = TestAdapter(strictMode: true)
    stubs.get("/v2/forecast", query: ["city": "Lyon"]) { _, _ in StubResponse(body: "{}") }
    let client = try WeatherClient(token: "t", adapter: stubs)
    do throws(FaradayError) {
        _ = try await client.forecast(for: "Paris")
        checks.expect(false, "the call should have failed")
    } catch {
        checks.expect(error.code == .noStubMatched, "error code \(error.code)")
    }
    do throws(FaradayError) {
        try stubs.verifyStubbedCalls()
        checks.expect(false, "the unused stub should be reported")
    } catch {
        checks.expect(error.code == .noStubMatched, "verifyStubbedCalls reports the unused stub")
    }
}

await checks.scenario("A cassette records real answers once, then replays them without a network") {
    // In a real test the recorder is AsyncHTTPClientAdapter or URLSessionAdapter and the cassette
    // lives beside the tests; here a TestAdapter plays the weather service.
    let service = TestAdapter()
    service.get("/v2/forecast") { _, _ in
        StubResponse(headers: [.contentType: "application/json"], body: #"{"city":"Lyon","celsius":19}"#)
    }
    let file = FileManager.default.temporaryDirectory.appending(path: "weather-\(UUID().uuidString).json")
    defer { try? FileManager.default.removeItem(at: file) }
    let recording = try WeatherClient(
        token: "live-s3cret",
        adapter: CassetteAdapter(cassette: file, recordingWith: service)
    )
    let recorded = try await recording.forecast(for: "Lyon")
    let cassette = try String(contentsOf: file, encoding: .utf8)
    checks.expect(!cassette.contains("live-s3cret"), "the token is redacted in the cassette")

    // The replay needs no service: the recorder below has no stubs and would fail any request.
    let replay = CassetteAdapter(cassette: file, mode: .none, recordingWith: TestAdapter())
    let replaying = try WeatherClient(token: "another-token", adapter: replay)
    checks.expect(try await replaying.forecast(for: "Lyon") == recorded, "replayed \(recorded)")
}

await checks.scenario("Requests no stub matches can go through to another adapter") {
    let service = TestAdapter()
    service.post("/v2/reports") { _, _ in StubResponse(status: .created) }
    let stubs = TestAdapter(passThrough: service)
    stubs.get("/v2/forecast") { _, _ in
        StubResponse(headers: [.contentType: "application/json"], body: #"{"city":"Nice","celsius":24}"#)
    }
    let client = try WeatherClient(token: "t", adapter: stubs)
    let forecast = try await client.forecast(for: "Nice")
    try await client.report(forecast)
    checks.expect(service.calls.map(\.method) == [.post], "only the unstubbed POST went through")
}

print(checks.failed == 0 ? "All checks passed." : "\(checks.failed) check(s) failed.")
exit(checks.failed == 0 ? 0 : 1)
