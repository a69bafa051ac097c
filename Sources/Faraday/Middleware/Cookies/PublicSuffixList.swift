import Foundation

/// Which domains are public suffixes (`com`, `co.uk`, `github.io`): a cookie may not be set for
/// one, or a site could set cookies for every site under it.
///
/// ``default`` treats every single-label domain (a top-level domain) as public, plus a built-in
/// set of widely used multi-label suffixes. For the complete list, load Mozilla's
/// `public_suffix_list.dat` with ``init(contentsOf:)`` (wildcard `*.` and exception `!` rules
/// are understood).
public struct PublicSuffixList: Sendable {
    private let rules: Set<String>
    private let wildcards: Set<String>
    private let exceptions: Set<String>

    /// Top-level domains, and common multi-label public suffixes.
    public static let `default` = PublicSuffixList(rules: [
        "co.uk", "org.uk", "ac.uk", "gov.uk", "me.uk", "ltd.uk", "plc.uk", "net.uk", "sch.uk",
        "com.au", "net.au", "org.au", "edu.au", "gov.au", "co.nz", "org.nz", "net.nz",
        "co.jp", "ne.jp", "or.jp", "ac.jp", "go.jp", "com.br", "net.br", "org.br", "gov.br",
        "com.cn", "net.cn", "org.cn", "gov.cn", "com.mx", "org.mx", "co.in", "net.in", "org.in",
        "co.za", "org.za", "com.ar", "com.tr", "com.tw", "com.hk", "com.sg", "co.kr", "or.kr",
        "co.il", "com.ua", "com.pl", "co.id", "com.my", "com.ph", "com.vn", "com.eg", "com.sa",
        "github.io", "githubusercontent.com", "gitlab.io", "herokuapp.com", "appspot.com",
        "blogspot.com", "cloudfront.net", "azurewebsites.net", "netlify.app", "vercel.app",
        "pages.dev", "workers.dev", "firebaseapp.com", "web.app", "s3.amazonaws.com",
        "elasticbeanstalk.com", "fly.dev", "onrender.com", "glitch.me", "repl.co", "ngrok.io",
    ])

    /// A list from rules in the Public Suffix List format: one rule a line, `//` comments,
    /// `*.example` wildcards and `!www.example` exceptions.
    public init(rules: [String]) {
        var plain = Set<String>()
        var wildcards = Set<String>()
        var exceptions = Set<String>()
        for line in rules {
            let rule = line.split(whereSeparator: \.isWhitespace).first.map { String($0).lowercased() } ?? ""
            if rule.isEmpty || rule.hasPrefix("//") { continue }
            if rule.hasPrefix("!") {
                exceptions.insert(String(rule.dropFirst()))
            } else if rule.hasPrefix("*.") {
                wildcards.insert(String(rule.dropFirst(2)))
            } else {
                plain.insert(rule)
            }
        }
        self.rules = plain
        self.wildcards = wildcards
        self.exceptions = exceptions
    }

    /// Reads a `public_suffix_list.dat` file.
    public init(contentsOf url: URL) throws {
        let text = try String(contentsOf: url, encoding: .utf8)
        self.init(rules: text.components(separatedBy: .newlines))
    }

    /// `true` when `domain` is a public suffix.
    public func isPublicSuffix(_ domain: String) -> Bool {
        let domain = domain.lowercased()
        if exceptions.contains(domain) { return false }
        if rules.contains(domain) || !domain.contains(".") { return true }
        guard let dot = domain.firstIndex(of: ".") else { return false }
        return wildcards.contains(String(domain[domain.index(after: dot)...]))
    }
}
