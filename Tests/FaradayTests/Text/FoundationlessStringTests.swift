import Testing

@testable import Faraday

/// The string helpers that stand in for Foundation's (the core builds on FoundationEssentials):
/// they match code units as Foundation does, not `Character`s.
@Suite struct FoundationlessStringTests {
    @Test func replacingEveryFindsScalarsInsideGraphemes() {
        // "\r\n" is one Character, and so is a quote followed by a combining accent.
        #expect("a\r\nb".replacingEvery("\r", with: "%0D") == "a%0D\nb")
        #expect("x\"\u{301}y".replacingEvery("\"", with: "\\\"") == "x\\\"\u{301}y")
        #expect("token=s3cr3t\u{301}".replacingEvery("s3cr3t", with: "[REDACTED]") == "token=[REDACTED]\u{301}")
        #expect("aaa".replacingEvery("aa", with: "b") == "ba")
        #expect("abc".replacingEvery("", with: "x") == "abc")
    }

    @Test func userInfoIsFoundWhateverJoinsTheSchemesSlash() {
        // A zero-width joiner after `//` makes one Character of `/` and itself.
        let text = Redaction().redacting(urlText: "https://\u{200D}user:pw@h/")
        #expect(!text.contains("pw"), "\(text)")
    }

    @Test func trimmingWhitespaceTrimsBothEnds() {
        #expect(" \u{301}x ".trimmingWhitespace() == "\u{301}x")
        #expect(" \t value \r\n".trimmingWhitespace() == "value")
        #expect("   ".trimmingWhitespace() == "")
        #expect("a b".trimmingWhitespace() == "a b")
    }

    @Test func fixedRoundsLikePrintf() {
        #expect(1.25.fixed(1) == "1.3" || 1.25.fixed(1) == "1.2")
        #expect(0.000_123_4.fixed(6) == "0.000123")
        #expect(12.0.fixed(1) == "12.0")
        #expect((-0.04).fixed(1) == "0.0")
        #expect((-1.5).fixed(1) == "-1.5")
        #expect(UInt8(0x2F).percentEscaped == "%2F")
    }
}
