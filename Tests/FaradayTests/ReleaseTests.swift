import Faraday
import Foundation
import Testing

/// The version is in one place: `faradayVersion`, which the `User-Agent` sends and the
/// CHANGELOG's newest version heading names.
@Suite struct ReleaseTests {
    private static let changelog = TestResources.repository.appending(path: "CHANGELOG.md")

    @Test func theChangelogsNewestVersionIsThePackageVersion() throws {
        let text = try String(contentsOf: Self.changelog, encoding: .utf8)
        let headings = text.split(separator: "\n").filter { $0.hasPrefix("## [") && !$0.hasPrefix("## [Unreleased]") }
        let newest = try #require(headings.first)
        #expect(newest.hasPrefix("## [\(faradayVersion)]"), "\(newest) is not \(faradayVersion)")
        #expect(text.contains("Keep a Changelog"))
    }

    @Test func theUserAgentSendsThePackageVersion() {
        #expect(Connection.defaultUserAgent == "Faraday/\(faradayVersion)")
        let parts = faradayVersion.split(separator: ".")
        #expect(parts.count == 3 && parts.allSatisfy { Int($0) != nil }, "a semantic version")
    }
}
