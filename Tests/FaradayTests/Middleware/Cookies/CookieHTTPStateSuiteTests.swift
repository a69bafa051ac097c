import Foundation
import Testing

@testable import Faraday

/// ``CookieJar`` against the IETF http-state Working Group's cookie parser tests
/// (`tests/data/parser.json` of github.com/abarth/http-state, an IETF Contribution, vendored with
/// its provenance in Resources/http-state): every one of the 222 cases, each in a fresh jar. The
/// `Set-Cookie` fields come from the suite's `cookie-parser` URL one at a time, in order; the
/// `Cookie` header the jar then sends to the case's `sent-to` URL must be the expected cookies,
/// `name=value` joined by `"; "` in RFC 6265 §5.4 order (longer paths first, then earlier
/// creation). A case the library deliberately answers otherwise is in ``deviations``, with the
/// library's answer asserted instead.
@Suite struct CookieHTTPStateSuiteTests {
    /// One case of `parser.json`.
    struct Case: Sendable, Decodable, CustomTestStringConvertible {
        struct Sent: Sendable, Decodable {
            let name: String
            let value: String
        }

        let test: String
        /// The `Set-Cookie` field values, in the order the server sends them.
        let received: [String]
        /// Where the next request goes (absolute, or relative to the `cookie-parser` URL).
        let sentTo: String?
        /// The cookies the `Cookie` header must hold, in order; none for no header.
        let sent: [Sent]

        enum CodingKeys: String, CodingKey {
            case test, received, sent
            case sentTo = "sent-to"
        }

        var testDescription: String { test }

        /// The test's name as the suite's server writes it in URLs: lowercased, `_` as `-`.
        var query: String { String(test.lowercased().map { $0 == "_" ? "-" : $0 }) }

        /// The `Cookie` header the suite expects; `nil` when no cookie goes.
        var expectedHeader: String? {
            sent.isEmpty ? nil : sent.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
        }
    }

    static let file = TestResources.url("http-state/parser.json")

    static let cases: [Case] = {
        guard let data = try? Data(contentsOf: file) else { return [] }
        return (try? JSONDecoder().decode([Case].self, from: data)) ?? []
    }()

    /// The suite's clock: the date of its last commit (2017-08-09 15:02:22 UTC). Some `Expires`
    /// dates (2019 in 0002, COMMA0006 and COMMA0007; 2027 in 0003, CHROMIUM0016 and CHROMIUM0017)
    /// were in the future then and are meant to be; on today's clock they expire, or will.
    static let clock = Date(timeIntervalSince1970: 1_502_290_942)

    /// What the library answers instead of the suite, and why.
    struct Deviation: Sendable {
        /// The `Cookie` header the library sends; `nil` for none.
        let answer: String?
        let reason: String
    }

    /// The cases the library deliberately answers otherwise; every other case is asserted as the
    /// suite says. All are cases the suite's authors disabled themselves, since user agents
    /// disagreed. (Not here, on purpose: DOMAIN0014, `domain=home.example.org.` from
    /// `home.example.org`, which must store no cookie.)
    static let deviations: [String: Deviation] = [
        "DISABLED_CHROMIUM0022": Deviation(
            answer: nil,
            reason: """
                a control character other than HTAB (here NUL) makes the jar ignore the whole header \
                (rfc6265bis, parsing Set-Cookie, step 1); the suite expects the value cut before it
                """
        ),
        "DISABLED_CHROMIUM0023": Deviation(
            answer: nil,
            reason: """
                a control character other than HTAB (here CR) makes the jar ignore the whole header \
                (rfc6265bis, parsing Set-Cookie, step 1); the suite expects the value cut before it
                """
        ),
        "DISABLED_PATH0029": Deviation(
            answer: nil,
            reason: """
                paths are compared as sent, percent-encoding included (RFC 6265 §5.1.4): a request \
                to /cookie-parser-result/f%6Fo/bar is not under the path /cookie-parser-result/foo/bar \
                (PATH0028 asserts the same the other way round); the suite expects %6F decoded
                """
        ),
    ]

    @Test func theWholeSuiteIsRead() {
        #expect(Self.cases.count == 222)
        #expect(Set(Self.cases.map(\.test)).count == Self.cases.count)
    }

    /// A deviation names a case of the suite, and one the suite answers otherwise (an entry the
    /// suite agrees with would be stale).
    @Test func everyDeviationIsACaseTheSuiteAnswersOtherwise() {
        for (name, deviation) in Self.deviations {
            guard let suiteCase = Self.cases.first(where: { $0.test == name }) else {
                Issue.record("\(name) is not a case of the suite")
                continue
            }
            #expect(suiteCase.expectedHeader != deviation.answer, "\(name) is no deviation")
        }
    }

    @Test(arguments: cases)
    func theJarSendsTheCookiesTheSuiteExpects(_ testCase: Case) throws {
        let jar = CookieJar()
        let origin = try #require(URL(string: "http://home.example.org:8888/cookie-parser?\(testCase.query)"))
        // One field at a time, a second apart: creation order is the order received.
        for (index, header) in testCase.received.enumerated() {
            jar.store(setCookieHeaders: [header], from: origin, now: Self.clock.addingTimeInterval(Double(index)))
        }
        let target = try #require(
            URL(string: testCase.sentTo ?? "/cookie-parser-result?\(testCase.query)", relativeTo: origin)?.absoluteURL
        )
        let sent = jar.cookieHeader(for: target, now: Self.clock.addingTimeInterval(Double(testCase.received.count)))

        if let deviation = Self.deviations[testCase.test] {
            let suiteAnswer = testCase.expectedHeader ?? "no Cookie header"
            #expect(
                sent == deviation.answer,
                "\(testCase.test), a deviation: \(deviation.reason) (the suite expects \(suiteAnswer))"
            )
        } else {
            #expect(
                sent == testCase.expectedHeader,
                "\(testCase.test): received \(testCase.received), sent to \(target.absoluteString)"
            )
        }
    }
}
