import Faraday
import FaradayTestSupport
import Foundation
import HTTPTypes

/// One test of the HTTP caching suite (http-tests/cache-tests, vendored in
/// `Resources/CacheTests`).
struct CacheSuiteTest: Sendable {
    enum Kind: String, Sendable, CaseIterable {
        case required, optimal, check
    }

    let id: String
    let kind: Kind
    let name: String
    let requests: [SuiteValue]

    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Resources/CacheTests/cache-tests.json")

    /// The tests a browser skips only because a shared cache's rules are tested (`s-maxage`,
    /// `private`, `proxy-revalidate`, `Authorization`); the others it skips (redirects, the
    /// cache answering the caller's own conditional request, interim responses) a client
    /// library's cache can be asked, and is.
    static let sharedCacheOnly: Set<String> = [
        "freshness-s-maxage-shared", "freshness-max-age-s-maxage-shared-longer",
        "freshness-max-age-s-maxage-shared-longer-reversed", "freshness-max-age-s-maxage-shared-longer-multiple",
        "freshness-max-age-s-maxage-shared-shorter", "freshness-max-age-s-maxage-shared-shorter-expires",
        "cc-resp-private-shared", "stale-close-proxy-revalidate", "stale-close-s-maxage=2",
        "other-authorization", "other-authorization-public", "other-authorization-must-revalidate",
        "other-authorization-smaxage",
    ]

    /// The tests a private cache runs: every one but the CDN's (`cdn_only`) and the shared
    /// cache's (``sharedCacheOnly``): 333 of the 370.
    static func privateCacheTests() throws -> [CacheSuiteTest] {
        let suites = try JSONDecoder().decode([SuiteValue].self, from: Data(contentsOf: file))
        return suites.flatMap { $0["tests"]?.elements ?? [] }.compactMap { test in
            guard test["cdn_only"]?.isTrue != true, let id = test["id"]?.string, !sharedCacheOnly.contains(id)
            else { return nil }
            return CacheSuiteTest(
                id: id,
                kind: test["kind"]?.string.flatMap(Kind.init) ?? .required,
                name: test["name"]?.string ?? id,
                requests: test["requests"]?.elements ?? []
            )
        }
    }
}

/// How a test ended, as the suite's client reports it: passed, failed an assertion, or failed a
/// check marked as setup (the test could not run as meant).
enum CacheSuiteOutcome: Sendable, Equatable {
    case pass
    case fail(String)
    case setupFail(String)

    var passed: Bool { self == .pass }
}

/// Runs the suite's tests as its client (`test-engine/client`) does, through a connection with
/// ``HTTPCache`` on `adapter`, against ``CacheSuiteServer``: each test on a clock of its own (a
/// pause is three seconds of it) and a cache of its own.
struct CacheSuiteRunner: Sendable {
    let server: CacheSuiteServer
    let adapter: any Adapter
    let makeStore: @Sendable () throws -> any CacheStore

    private struct Failure: Error {
        let isSetup: Bool
        let message: String
    }

    private static let dateFields: Set<String> = [
        "date", "expires", "last-modified", "if-modified-since", "if-unmodified-since",
    ]

    func run(_ test: CacheSuiteTest) async -> CacheSuiteOutcome {
        let uuid = UUID().uuidString.lowercased()
        let clock = SuiteClock()
        server.register(uuid, requests: test.requests, clock: clock)
        do {
            let connection = try Connection(url: "http://127.0.0.1:\(server.port)") { builder in
                builder.use(HTTPCache.Handler(store: try makeStore(), now: { clock.now }))
                builder.adapter = adapter
            }
            var responses: [Env] = []
            for (index, config) in test.requests.enumerated() {
                let env: Env
                do {
                    env = try await send(
                        config,
                        number: index + 1,
                        of: test,
                        uuid: uuid,
                        previous: responses.last,
                        on: connection
                    )
                } catch is FaradayError where config["disconnect"]?.isTrue == true {
                    // The server closed the connection: a client cache that serves nothing stale
                    // fails the call, where a proxy answers an error of its own. The checks run on
                    // that error as on a response with no status, fields or body.
                    env = Env(request: Request(method: .get, url: Self.anyURL))
                }
                try check(env, config, number: index + 1, uuid: uuid)
                responses.append(env)
                if config["pause_after"]?.isTrue == true { clock.advance(3) }
            }
            try checkServerRequests(test, responses, log: server.log(of: uuid))
            return .pass
        } catch let failure as Failure {
            return failure.isSetup ? .setupFail(failure.message) : .fail(failure.message)
        } catch {
            return .fail("\(error)")
        }
    }

    // MARK: The client's request

    private func send(
        _ config: SuiteValue,
        number: Int,
        of test: CacheSuiteTest,
        uuid: String,
        previous: Env?,
        on connection: Connection
    ) async throws -> Env {
        var path = "test/\(uuid)"
        if let filename = config["filename"]?.string { path += "/\(filename)" }
        if let query = config["query_arg"]?.string { path += "?\(query)" }
        var headers = HTTPFields()
        for field in config["request_headers"]?.elements ?? [] {
            let parts = field.elements
            guard let name = parts.first?.string.flatMap({ HTTPField.Name($0) }), parts.count >= 2 else { continue }
            var value = parts[1].text
            // `magic_ims`: seconds relative to the previous response's `Server-Now`.
            if config["magic_ims"]?.isTrue == true, Self.dateFields.contains(name.canonicalName),
                let delta = parts[1].int, let now = previous?.responseHeaders[serverNow].flatMap({ Int($0) })
            {
                value = CacheSuiteServer.httpDate(milliseconds: now + delta * 1000, rfc850: false)
            }
            headers.append(HTTPField(name: name, value: value))
        }
        // The browser's `cache: 'no-cache'` (a reload) sends `Cache-Control: max-age=0`, which
        // asks the cache to revalidate.
        if config["cache"]?.string == "no-cache" { headers[.cacheControl] = "max-age=0" }
        headers.append(HTTPField(name: .named("Test-Name"), value: test.name))
        headers.append(HTTPField(name: .named("Test-ID"), value: test.id))
        headers.append(HTTPField(name: .named("Req-Num"), value: "\(number)"))
        let body: RequestBody = config["request_body"]?.string.map { .text($0) } ?? .empty
        let method = HTTPRequest.Method(config["request_method"]?.string ?? "GET") ?? .get
        return try await connection.run(method: method, path, headers: headers, body: body).value
    }

    // MARK: The client's checks of each response (`checkResponse`)

    private func check(_ env: Env, _ config: SuiteValue, number: Int, uuid: String) throws {
        func isSetup(_ member: String) -> Bool {
            config["setup"]?.isTrue == true
                || (config["setup_tests"]?.elements ?? []).contains(.string(member))
        }
        func require(_ condition: Bool, setup: Bool, _ message: @autoclosure () -> String) throws {
            guard !condition else { return }
            throw Failure(isSetup: setup, message: message())
        }
        let headers = env.responseHeaders
        func field(_ name: String) -> String? { HTTPField.Name(name).flatMap { headers[$0] } }
        let status = env.status?.code ?? 0
        let served = field("Server-Request-Count").flatMap { Int($0) }

        if let numbers = field("Request-Numbers")?.split(separator: " ") {
            try require(Set(numbers).count == numbers.count, setup: true, "retry")
        }
        switch config["expected_type"]?.string {
        case "cached":
            if !(status == 304 && served == nil) {
                try require(
                    (served ?? .max) < number,
                    setup: isSetup("expected_type"),
                    "Response \(number) does not come from cache"
                )
            }
        case "not_cached":
            try require(served == number, setup: isSetup("expected_type"), "Response \(number) comes from cache")
        default: break
        }
        if let expected = config["expected_status"] {
            if let code = expected.int {
                try require(
                    status == code,
                    setup: isSetup("expected_status"),
                    "Response \(number) status is \(status), not \(code)"
                )
            }
        } else if let code = config["response_status"]?.elements.first?.int {
            try require(status == code, setup: true, "Response \(number) status is \(status), not \(code)")
        } else if status == 999 {
            try require(false, setup: isSetup("expected_type"), "Request \(number) should have been conditional")
        } else {
            try require(status == 200, setup: true, "Response \(number) status is \(status), not 200")
        }
        for expected in config["expected_response_headers"]?.elements ?? [] {
            let setup = isSetup("expected_response_headers")
            if let name = expected.string {
                try require(field(name) != nil, setup: setup, "Response \(number) \(name) header not present")
                continue
            }
            let parts = expected.elements
            guard let name = parts.first?.string, parts.count >= 2 else { continue }
            let value = field(name)
            if parts.count > 2 {
                try require(value != nil, setup: setup, "Response \(number) \(name) header not present")
                switch parts[1].string {
                case "=":
                    let other = parts[2].string.flatMap(field)
                    try require(
                        value == other,
                        setup: setup,
                        "Response \(number) \(name) is \(value ?? "-"), not \(other ?? "-")"
                    )
                case ">":
                    let bound = parts[2].int ?? 0
                    let number = value.flatMap { Int($0.prefix { $0.isNumber || $0 == "-" }) } ?? .min
                    try require(
                        number > bound,
                        setup: setup,
                        "Response header \(name) is \(value ?? "-"), not > \(bound)"
                    )
                default:
                    throw Failure(isSetup: true, message: "unknown operator \(parts[1].text)")
                }
            } else {
                var wanted = parts[1].text
                if Self.dateFields.contains(name.lowercased()), let delta = parts[1].int,
                    let now = field("Server-Now").flatMap({ Int($0) })
                {
                    wanted = CacheSuiteServer.httpDate(
                        milliseconds: now + delta * 1000,
                        rfc850: (config["rfc850date"]?.elements ?? []).contains(.string(name.lowercased()))
                    )
                }
                try require(
                    value == wanted,
                    setup: setup,
                    "Response \(number) \(name) is \(value ?? "-"), not \(wanted)"
                )
            }
        }
        // `["Name", "substring"]`: the field may be there, without that value. The suite's own
        // client never checks this form (it reads a property that does not exist); this driver
        // does, so the `headers-store-*` tests check that a hit has no field of the connection.
        for missing in config["expected_response_headers_missing"]?.elements ?? [] {
            let setup = isSetup("expected_response_headers_missing")
            if let name = missing.string {
                try require(field(name) == nil, setup: setup, "Response \(number) includes unexpected header \(name)")
            } else if let name = missing.elements.first?.string, let value = missing.elements.dropFirst().first?.string
            {
                try require(
                    !(field(name) ?? "").contains(value),
                    setup: setup,
                    "Response \(number) header \(name) still has \(value)"
                )
            }
        }
        let text = env.response?.text ?? ""
        if config["check_body"] == .bool(false) { return }
        if let expected = config["expected_response_text"] {
            if let wanted = expected.string {
                try require(
                    text == wanted,
                    setup: isSetup("expected_response_text"),
                    "Response body is \(text), not \(wanted)"
                )
            }
        } else if let wanted = config["response_body"]?.string {
            try require(text == wanted, setup: true, "Response body is \(text), not \(wanted)")
        } else if status != 204, status != 304, config["request_method"]?.string != "HEAD" {
            try require(text == uuid, setup: true, "Response body is \(text), not the test's UUID")
        }
    }

    // MARK: The client's checks of what the server received (`checkServerRequests`)

    private func checkServerRequests(
        _ test: CacheSuiteTest,
        _ responses: [Env],
        log: [CacheSuiteServer.LogEntry]
    ) throws {
        var logIndex = 0
        for (index, config) in test.requests.enumerated() {
            let number = index + 1
            let setup =
                config["setup"]?.isTrue == true
                || (config["setup_tests"]?.elements ?? []).contains(.string("expected_type"))
            let entry = log.indices.contains(logIndex) ? log[logIndex] : nil
            var validators: [String] = []
            switch config["expected_type"]?.string {
            case "cached": continue  // the server did not see it
            case "not_cached":
                if entry?.requestNumber != number {
                    throw Failure(
                        isSetup: setup,
                        message: "Response \(number) comes from cache (server saw \(entry?.requestNumber ?? 0))"
                    )
                }
            case "etag_validated": validators.append("if-none-match")
            case "lm_validated": validators.append("if-modified-since")
            default: break
            }
            logIndex += 1
            for validator in validators where entry?.requestHeaders[validator] == nil {
                throw Failure(isSetup: setup, message: "Request \(number) does not have \(validator)")
            }
            for expected in config["expected_request_headers"]?.elements ?? [] {
                let presentSetup =
                    config["setup"]?.isTrue == true
                    || (config["setup_tests"]?.elements ?? []).contains(.string("expected_request_headers"))
                if let name = expected.string {
                    if entry?.requestHeaders[name.lowercased()] == nil {
                        throw Failure(isSetup: presentSetup, message: "Request \(number) \(name) header not present")
                    }
                } else if let name = expected.elements.first?.string, expected.elements.count >= 2 {
                    let value = entry?.requestHeaders[name.lowercased()]
                    if value != expected.elements[1].text {
                        throw Failure(
                            isSetup: presentSetup,
                            message: "Request \(number) header \(name) is \(value ?? "-")"
                        )
                    }
                }
            }
            if let entry, responses.indices.contains(index) {
                for (name, sent) in entry.responseHeaders where name.lowercased() != "date" {
                    let received = HTTPField.Name(name).flatMap { responses[index].responseHeaders[$0] }
                    if received != sent {
                        throw Failure(
                            isSetup: true,
                            message: "Response \(number) header \(name) is \(received ?? "-"), not \(sent)"
                        )
                    }
                }
            }
            if let method = config["expected_method"]?.string, entry?.method != method {
                throw Failure(
                    isSetup: config["setup"]?.isTrue == true
                        || (config["setup_tests"]?.elements ?? []).contains(.string("expected_method")),
                    message: "Request \(number) had method \(entry?.method ?? "-"), not \(method)"
                )
            }
        }
    }

    private let serverNow = HTTPField.Name.named("Server-Now")
    private static let anyURL = URL(filePath: "/")
}
