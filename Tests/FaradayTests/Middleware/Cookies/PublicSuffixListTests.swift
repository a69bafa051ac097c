import Foundation
import Testing

@testable import Faraday

/// The compiled-in Public Suffix List against the list's own test cases (`tests/test_psl.txt` of
/// github.com/publicsuffix/list, public domain, vendored in Resources/PublicSuffixList).
@Suite struct PublicSuffixListTests {
    /// `checkPublicSuffix('input', 'registrable')` lines; `null` is `nil`.
    static let cases: [(input: String, registrable: String?)] = {
        let file = TestResources.url("PublicSuffixList/test_psl.txt")
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return [] }
        return text.split(whereSeparator: \.isNewline).compactMap { line in
            guard line.hasPrefix("checkPublicSuffix(") else { return nil }
            let arguments = line.dropFirst("checkPublicSuffix(".count).prefix { $0 != ")" }
                .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            func value(_ argument: String) -> String? {
                argument == "null" ? nil : String(argument.dropFirst().dropLast())
            }
            guard arguments.count == 2, let input = value(arguments[0]) else { return nil }
            return (input, value(arguments[1]))
        }
    }()

    @Test func theListsOwnTestCasesAreAllRead() {
        #expect(Self.cases.count > 60)
    }

    @Test func everyCaseOfTheListsOwnSuitePasses() {
        let failures = Self.cases.filter { PublicSuffixList.default.registrableDomain(of: $0.input) != $0.registrable }
        #expect(failures.map(\.input) == [])
    }

    @Test(arguments: [
        "co.jp", "gifu.jp", "anything.kawasaki.jp", "githubusercontent.com", "s3.amazonaws.com",
        "blogspot.com", "com.", "CO.UK", "uk.com", "xn--55qx5d.cn", "公司.cn",
    ])
    func theFullListKnowsSuffixesTheOldBuiltInOneDidNot(_ domain: String) {
        #expect(PublicSuffixList.default.isPublicSuffix(domain))
    }

    @Test(arguments: ["city.kawasaki.jp", "kawasaki.jp", "example.co.jp", "example.com", "example.com."])
    func registrableDomainsAreNotSuffixes(_ domain: String) {
        #expect(!PublicSuffixList.default.isPublicSuffix(domain))
    }

    @Test func publicSuffixAndRegistrableDomainOfADeepName() {
        let list = PublicSuffixList.default
        #expect(list.publicSuffix(of: "www.example.co.uk") == "co.uk")
        #expect(list.registrableDomain(of: "www.example.co.uk") == "example.co.uk")
        #expect(list.publicSuffix(of: "a..b") == nil)
        #expect(list.registrableDomain(of: "") == nil)
    }

    @Test func aNewerCopyCanBeLoadedFromAFile() throws {
        let file = FileManager.default.temporaryDirectory.appending(path: "psl-\(UUID()).dat")
        try "// ===BEGIN ICANN DOMAINS===\nnewtld\n*.wild.newtld\n!ok.wild.newtld\n".write(
            to: file,
            atomically: true,
            encoding: .utf8
        )
        defer { try? FileManager.default.removeItem(at: file) }
        let list = try PublicSuffixList(contentsOf: file)
        #expect(list.isPublicSuffix("newtld"))
        #expect(list.isPublicSuffix("x.wild.newtld"))
        #expect(!list.isPublicSuffix("ok.wild.newtld"))
        #expect(list.registrableDomain(of: "www.ok.wild.newtld") == "ok.wild.newtld")
        let jar = CookieJar(publicSuffixes: list)
        jar.store(
            setCookieHeaders: ["a=1; Domain=x.wild.newtld"],
            from: try #require(URL(string: "https://a.x.wild.newtld/"))
        )
        #expect(jar.allCookies.isEmpty)
    }

    @Test(arguments: [
        ("ab", "ab"), ("食狮", "xn--85x722f"), ("公司", "xn--55qx5d"), ("中国", "xn--fiqs8s"), ("bücher", "xn--bcher-kva"),
    ])
    func punycodeMatchesRFC3492(_ label: String, _ ascii: String) {
        #expect((Punycode.asciiDomain(label) ?? label) == ascii)
    }
}
