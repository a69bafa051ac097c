import Faraday
import FaradayTestSupport
import Foundation
import HTTPTypes
import Logging
import NIOConcurrencyHelpers

/// Calls driven through a ``FaultServer`` at a fixed number in flight, each checked as it ends:
/// the fault campaign of issue 62. `Benchmarks/FaultCampaign/Run` runs it at 20,000 calls per
/// adapter; `FaultCampaignTests` runs a few hundred in `swift test`.
///
/// Seven calls in ten are GETs, two PUTs and one a POST, each PUT and POST with the body
/// ``FaultServer/requestBody(for:)`` of its name, so that a resend on a new connection (allowed
/// for the PUT, never for the POST) is met as well as a GET's.
public struct FaultCampaign: Sendable {
    /// How many calls in all.
    public var calls: Int
    /// How many calls in flight at once.
    public var inFlight = 64
    /// Whether each call streams its answer (one completion per chunk) or buffers it.
    public var streamed: Bool
    /// The whole call's deadline: the `Timeout` at the top of ``handlers()``.
    public var callTimeout: Duration = .seconds(3)
    /// A call still running this long after its deadline has hung.
    public var hangGrace: Duration = .seconds(15)
    /// After how many ended calls the resident memory is first read.
    public var firstMemoryReading: Int

    /// A campaign of `calls` calls, buffered or `streamed`.
    public init(calls: Int, streamed: Bool) {
        self.calls = calls
        self.streamed = streamed
        self.firstMemoryReading = calls / 4
    }

    /// The stack under test: a `Timeout` over the whole call, `Retry` (three attempts, short
    /// waits), then issue 22's six (EncodeJSON, DecodeJSON, HTTPLogger with its lines off,
    /// Authorization, Cookies, RaiseError).
    public func handlers() -> [any Handler] {
        var quiet = Logger(label: "faraday.fault-campaign")
        quiet.logLevel = .critical  // HTTPLogger logs failures at .error: every line is off
        return [
            Timeout.Handler(callTimeout),
            Retry.Handler(maxAttempts: 3, backoff: Backoff(base: .milliseconds(5), cap: .milliseconds(50))),
            EncodeJSON.Handler(),
            DecodeJSON.Handler(),
            HTTPLogger.Handler(logger: quiet),
            Authorization.Handler(.bearer("fault-campaign")),
            Cookies.Handler(jar: CookieJar()),
            RaiseError.Handler(),
        ]
    }

    /// Runs the campaign through `connection` (made with ``handlers()`` over the adapter under
    /// test, to the server's base URL); each call is named `PREFIX-N`.
    public func run(_ connection: Connection, prefix: String) async -> Report {
        let tally = NIOLockedValueBox(Report())
        let next = NIOLockedValueBox(0)
        let running = NIOLockedValueBox([Int: ContinuousClock.Instant]())
        let start = ContinuousClock.now
        let campaign = self
        await withTaskGroup(of: Bool.self) { group in
            // The watchdog: a call running past its deadline and the grace has hung; the calls
            // are then cancelled, so that the campaign ends and says so.
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(250))
                    let now = ContinuousClock.now
                    let hung = running.withLockedValue { running in
                        running.values.filter { now - $0 > campaign.callTimeout + campaign.hangGrace }.count
                    }
                    if hung > 0 {
                        tally.withLockedValue { $0.hung += hung }
                        return true
                    }
                }
                return true
            }
            for _ in 0..<inFlight {
                group.addTask {
                    while let index = next.withLockedValue({ index -> Int? in
                        guard index < campaign.calls else { return nil }
                        defer { index += 1 }
                        return index
                    }) {
                        running.withLockedValue { $0[index] = ContinuousClock.now }
                        let outcome = await campaign.call(index, prefix: prefix, through: connection)
                        running.withLockedValue { _ = $0.removeValue(forKey: index) }
                        let ended = tally.withLockedValue { report in
                            report.record(outcome)
                            return report.calls
                        }
                        if ended == campaign.firstMemoryReading {
                            let resident = ProcessMemory.resident
                            tally.withLockedValue { $0.residentAtFirstReading = resident }
                        }
                    }
                    return false
                }
            }
            var workers = inFlight
            while let isWatchdog = await group.next() {
                if !isWatchdog { workers -= 1 }
                if isWatchdog || workers == 0 { group.cancelAll() }
            }
        }
        return tally.withLockedValue { report in
            report.elapsed = ContinuousClock.now - start
            report.residentAtEnd = ProcessMemory.resident
            return report
        }
    }

    /// One call, checked.
    private func call(_ index: Int, prefix: String, through connection: Connection) async -> Outcome {
        let name = "\(prefix)-\(index)"
        let expected = FaultServer.responseBody(for: name)
        let upload = RequestBody.bytes(
            Data(FaultServer.requestBody(for: name)),
            contentType: "application/octet-stream"
        )
        let response: Response =
            switch index % 10 {
            case 7, 8: connection.put("c/\(name)", body: upload, streaming: streamed ? .chunks : nil)
            case 9: connection.post("c/\(name)", body: upload, streaming: streamed ? .chunks : nil)
            default: connection.get("c/\(name)", streaming: streamed ? .chunks : nil)
            }
        do {
            var head: Env?
            var body = Data()
            var completions = response.completions.makeAsyncIterator()
            while let env = try await completions.next() {
                if head == nil { head = env }
                body.append(env.body)
            }
            // Ended once: the sequence stays ended.
            if try await completions.next() != nil { return .endedTwice(name) }
            guard let head, head.status?.code == 200, head.responseHeaders[Self.requestName] == name,
                ["ok", "unread"].contains(head.responseHeaders[Self.requestBodyCheck]), body.elementsEqual(expected)
            else {
                return .wrongAnswer(name, head?.status?.code, body.count, expected.count)
            }
            return .succeeded
        } catch {
            return .failed(error.code)
        }
    }

    private static let requestName = HTTPField.Name("x-request-name")!
    private static let requestBodyCheck = HTTPField.Name("x-request-body")!

    /// How one call ended.
    enum Outcome {
        case succeeded
        case failed(FaradayError.Code)
        case wrongAnswer(String, Int?, Int, Int)
        case endedTwice(String)
    }

    /// What a campaign saw.
    public struct Report: Sendable, CustomStringConvertible {
        /// Calls ended.
        public var calls = 0
        /// Calls that ended with the whole, right answer.
        public var succeeded = 0
        /// Calls that ended with a `FaradayError`, by code.
        public var failures: [FaradayError.Code: Int] = [:]
        /// Calls handed a wrong status, name or body: none may be.
        public var wrongAnswers: [String] = []
        /// Calls whose completions went on after their end: none may.
        public var endedTwice: [String] = []
        /// Calls still running past their deadline and the grace: none may.
        public var hung = 0
        /// The resident memory after ``FaultCampaign/firstMemoryReading`` calls and at the end.
        public var residentAtFirstReading = 0
        public var residentAtEnd = 0
        /// How long the campaign took.
        public var elapsed = Duration.zero

        /// What broke an invariant; empty when none did.
        public var violations: [String] {
            var found: [String] = []
            if !wrongAnswers.isEmpty { found.append("wrong answers: \(wrongAnswers.prefix(5))") }
            if !endedTwice.isEmpty { found.append("ended twice: \(endedTwice.prefix(5))") }
            if hung > 0 { found.append("\(hung) calls hung") }
            return found
        }

        public var description: String {
            let failed = failures.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            return "\(calls) calls, \(succeeded) whole, failed: [\(failed)], "
                + "violations: \(violations.isEmpty ? "none" : violations.joined(separator: "; "))"
        }

        mutating func record(_ outcome: Outcome) {
            calls += 1
            switch outcome {
            case .succeeded: succeeded += 1
            case .failed(let code): failures[code, default: 0] += 1
            case .wrongAnswer(let name, let status, let count, let expected):
                wrongAnswers.append(
                    "\(name): status \(status.map(String.init) ?? "none"), \(count) of \(expected) bytes"
                )
            case .endedTwice(let name): endedTwice.append(name)
            }
        }
    }
}
