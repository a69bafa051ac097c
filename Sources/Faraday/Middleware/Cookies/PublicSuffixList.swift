import Foundation

/// Which domains are public suffixes (`com`, `co.uk`, `github.io`): a cookie may not be set for
/// one, or a site could set cookies for every site under it.
///
/// ``default`` is Mozilla's complete Public Suffix List (its ICANN and private sections), compiled
/// in and parsed once, on first use. To use a newer copy, load `public_suffix_list.dat` with
/// ``init(contentsOf:)`` and give it to the jar (`CookieJar(publicSuffixes:)`); the copy compiled
/// in is updated with `Scripts/update-public-suffix-list.sh`.
///
/// Lookups follow the list's algorithm: exception rules (`!www.ck`) win, then the rule with the
/// most labels, wildcards (`*.ck`) included; a domain no rule names has its last label as its
/// public suffix. Unicode rules are matched in both their Unicode and their punycode (`xn--`)
/// spelling, and a trailing dot is ignored (`com.` is `com`).
public struct PublicSuffixList: Sendable {
    private let rules: Set<String>
    private let wildcards: Set<String>
    private let exceptions: Set<String>

    /// Mozilla's Public Suffix List as compiled into this version of Faraday.
    public static let `default` = PublicSuffixList(text: compiledInRules)

    /// A list from rules in the Public Suffix List format: one rule a line, `//` comments,
    /// `*.example` wildcards and `!www.example` exceptions.
    public init<Lines: Sequence>(rules: Lines) where Lines.Element: StringProtocol {
        var plain = Set<String>()
        var wildcards = Set<String>()
        var exceptions = Set<String>()
        for line in rules {
            guard let token = line.split(whereSeparator: \.isWhitespace).first, !token.hasPrefix("//") else {
                continue
            }
            let rule = token.lowercased()
            for spelling in Set([rule, Punycode.asciiDomain(rule) ?? rule]) {
                if spelling.hasPrefix("!") {
                    exceptions.insert(String(spelling.dropFirst()))
                } else if spelling.hasPrefix("*.") {
                    wildcards.insert(String(spelling.dropFirst(2)))
                } else {
                    plain.insert(spelling)
                }
            }
        }
        self.rules = plain
        self.wildcards = wildcards
        self.exceptions = exceptions
    }

    /// A list from the text of a `public_suffix_list.dat` file.
    public init(text: String) {
        self.init(rules: text.split(whereSeparator: \.isNewline))
    }

    /// Reads a `public_suffix_list.dat` file.
    public init(contentsOf url: URL) throws {
        self.init(text: try String(contentsOf: url, encoding: .utf8))
    }

    /// `true` when `domain` is a public suffix, or no valid domain name (an empty label: no
    /// cookie may be set for it either).
    public func isPublicSuffix(_ domain: String) -> Bool {
        guard let domain = Self.normalized(domain) else { return true }
        return publicSuffixStart(in: domain) == domain.startIndex
    }

    /// The public suffix `domain` ends with (`co.uk` for `www.example.co.uk`), or `nil` for a
    /// domain that is not a valid name (empty, or with an empty label).
    public func publicSuffix(of domain: String) -> String? {
        guard let domain = Self.normalized(domain) else { return nil }
        return String(domain[publicSuffixStart(in: domain)...])
    }

    /// The public suffix and one label before it (`example.co.uk` for `www.example.co.uk`): the
    /// domain a site registered. `nil` when `domain` is itself a public suffix, or not valid.
    public func registrableDomain(of domain: String) -> String? {
        guard let domain = Self.normalized(domain) else { return nil }
        let suffix = publicSuffixStart(in: domain)
        guard suffix > domain.startIndex else { return nil }
        let dotBefore = domain.index(before: suffix)
        let labelStart = domain[..<dotBefore].lastIndex(of: ".").map { domain.index(after: $0) }
        return String(domain[(labelStart ?? domain.startIndex)...])
    }

    /// Lowercased, without a trailing dot; `nil` when empty or with an empty label.
    private static func normalized(_ domain: String) -> String? {
        var domain = domain.lowercased()
        if domain.hasSuffix(".") { domain.removeLast() }
        guard !domain.isEmpty, !domain.hasPrefix("."), !domain.hasSuffix("."), !domain.contains("..") else {
            return nil
        }
        return domain
    }

    /// Where the public suffix of a normalised domain starts.
    private func publicSuffixStart(in domain: String) -> String.Index {
        // Each suffix of the domain, longest first: the whole domain, then after each dot.
        var starts = [domain.startIndex]
        var index = domain.startIndex
        while let dot = domain[index...].firstIndex(of: ".") {
            index = domain.index(after: dot)
            starts.append(index)
        }
        for (position, start) in starts.enumerated() where exceptions.contains(String(domain[start...])) {
            // An exception's public suffix is the rule without its first label.
            return starts.indices.contains(position + 1) ? starts[position + 1] : domain.endIndex
        }
        for (position, start) in starts.enumerated() {
            let suffix = String(domain[start...])
            if position > 0 && wildcards.contains(suffix) { return starts[position - 1] }
            if rules.contains(suffix) { return start }
        }
        // No rule: the prevailing rule is `*`, the last label.
        return starts[starts.count - 1]
    }
}

/// Punycode (RFC 3492) for the labels of internationalised domain names, as IDNA writes them
/// (`xn--…`): enough to match a list's Unicode rules against ASCII host names.
enum Punycode {
    /// `domain` with each non-ASCII label encoded, or `nil` when no label needed it.
    static func asciiDomain(_ domain: String) -> String? {
        guard !domain.allSatisfy(\.isASCII) else { return nil }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false).map { label -> String in
            // A label is at most 63 bytes; longer is no name (and would only grow the encoder's sums).
            label.allSatisfy(\.isASCII) || label.utf8.count > 63
                ? String(label) : "xn--" + encode(label.unicodeScalars.map(\.value))
        }
        return labels.joined(separator: ".")
    }

    /// RFC 3492 §6.3, with its parameters for IDNA.
    static func encode(_ input: [UInt32]) -> String {
        let (base, tMin, tMax, skew, damp) = (36, 1, 26, 38, 700)
        func digit(_ value: Int) -> Character {
            Character(Unicode.Scalar(UInt8(value < 26 ? value + 97 : value + 22)))
        }
        func adapt(_ delta: Int, _ count: Int, _ first: Bool) -> Int {
            var delta = first ? delta / damp : delta / 2
            delta += delta / count
            var k = 0
            while delta > ((base - tMin) * tMax) / 2 {
                delta /= base - tMin
                k += base
            }
            return k + (base - tMin + 1) * delta / (delta + skew)
        }
        var output = String(input.filter { $0 < 0x80 }.map { Character(Unicode.Scalar(UInt8($0))) })
        let basicCount = output.count
        var handled = basicCount
        if basicCount > 0 { output.append("-") }
        var (n, delta, bias) = (0x80, 0, 72)
        while handled < input.count {
            let next = Int(input.lazy.map(Int.init).filter { $0 >= n }.min() ?? n)
            delta += (next - n) * (handled + 1)
            n = next
            for scalar in input.lazy.map(Int.init) {
                if scalar < n { delta += 1 }
                guard scalar == n else { continue }
                var q = delta
                var k = base
                while true {
                    let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                    if q < t { break }
                    output.append(digit(t + (q - t) % (base - t)))
                    q = (q - t) / (base - t)
                    k += base
                }
                output.append(digit(q))
                bias = adapt(delta, handled + 1, handled == basicCount)
                delta = 0
                handled += 1
            }
            delta += 1
            n += 1
        }
        return output
    }
}
