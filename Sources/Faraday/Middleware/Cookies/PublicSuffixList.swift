#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
/// public suffix. Rules and names are compared in one canonical form (lowercase IDNA A-labels, no
/// trailing dot), so `公司.cn` and `xn--55qx5d.cn` are the same suffix and `com.` is `com`.
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
            // Rules are kept in the one canonical form lookups use: lowercase IDNA A-labels.
            let rule = token.lowercased()
            if rule.hasPrefix("!") {
                if let name = DomainName.canonical(String(rule.dropFirst())) { exceptions.insert(name) }
            } else if rule.hasPrefix("*.") {
                if let name = DomainName.canonical(String(rule.dropFirst(2))) { wildcards.insert(name) }
            } else if let name = DomainName.canonical(rule) {
                plain.insert(name)
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
    ///
    /// - Throws: ``FaradayError/Code/storageFailed`` when the file cannot be read as UTF-8.
    public init(contentsOf url: URL) throws(FaradayError) {
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw FaradayError(
                .storageFailed,
                "Cannot read the public suffix list \(url.path): \(error)",
                underlying: error
            )
        }
        self.init(text: text)
    }

    /// `true` when `domain` is a public suffix, or no valid domain name (an empty label: no
    /// cookie may be set for it either).
    public func isPublicSuffix(_ domain: String) -> Bool {
        guard let labels = Self.labels(domain) else { return true }
        return suffixLabelCount(labels.canonical) == labels.canonical.count
    }

    /// The public suffix `domain` ends with (`co.uk` for `www.example.co.uk`), spelled as in
    /// `domain` (lowercased), or `nil` for a name that is not valid (empty, or an empty label).
    public func publicSuffix(of domain: String) -> String? {
        guard let labels = Self.labels(domain) else { return nil }
        return labels.spelled.suffix(suffixLabelCount(labels.canonical)).joined(separator: ".")
    }

    /// The public suffix and one label before it (`example.co.uk` for `www.example.co.uk`): the
    /// domain a site registered. `nil` when `domain` is itself a public suffix, or not valid.
    public func registrableDomain(of domain: String) -> String? {
        guard let labels = Self.labels(domain) else { return nil }
        let count = suffixLabelCount(labels.canonical)
        guard count < labels.canonical.count else { return nil }
        return labels.spelled.suffix(count + 1).joined(separator: ".")
    }

    /// The labels of a name as written (lowercased) and in canonical form, label for label.
    private static func labels(_ domain: String) -> (spelled: [Substring], canonical: [Substring])? {
        guard let canonical = DomainName.canonical(domain) else { return nil }
        var spelled = domain.lowercased()
        if spelled.hasSuffix(".") { spelled.removeLast() }
        return (
            spelled.split(separator: ".", omittingEmptySubsequences: false),
            canonical.split(separator: ".", omittingEmptySubsequences: false)
        )
    }

    /// How many labels at the end of a canonical name are its public suffix: exception rules
    /// win, then the rule with the most labels (wildcards included), else one.
    private func suffixLabelCount(_ labels: [Substring]) -> Int {
        let suffixes = labels.indices.map { labels[$0...].joined(separator: ".") }  // longest first
        for (position, suffix) in suffixes.enumerated() where exceptions.contains(suffix) {
            return labels.count - position - 1  // an exception's public suffix drops its first label
        }
        for (position, suffix) in suffixes.enumerated() {
            if position > 0 && wildcards.contains(suffix) { return labels.count - position + 1 }
            if rules.contains(suffix) { return labels.count - position }
        }
        return 1  // no rule: the prevailing rule is `*`
    }
}

/// Domain names in the one form every domain decision compares: lowercase, no trailing dot,
/// internationalised labels as IDNA A-labels (`公司.cn` is `xn--55qx5d.cn`).
enum DomainName {
    /// The canonical form of `name`, or `nil` when it is empty or has an empty label.
    static func canonical(_ name: String) -> String? {
        if isCanonical(name) { return name }  // nearly every host: one pass over the bytes
        var name = name.lowercasedCheaply
        if name.hasSuffix(".") { name.removeLast() }
        guard !name.isEmpty, !name.hasPrefix("."), !name.hasSuffix("."), !hasEmptyLabel(name) else { return nil }
        return Punycode.asciiDomain(name) ?? name
    }

    /// Whether `name` is in canonical form already: lowercase ASCII letters, digits, `-`, `_`
    /// and single dots between labels.
    private static func isCanonical(_ name: String) -> Bool {
        var previous = UInt8(ascii: ".")  // so that a leading dot fails
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"):
                break
            case UInt8(ascii: ".") where previous != UInt8(ascii: "."):
                break
            default:
                return false
            }
            previous = byte
        }
        return previous != UInt8(ascii: ".")  // empty, or a trailing dot
    }

    /// Whether `name` has two dots in a row (compared on the bytes: Foundation's
    /// `contains("..")` allocates on every call).
    private static func hasEmptyLabel(_ name: String) -> Bool {
        zip(name.utf8, name.utf8.dropFirst()).contains { $0 == UInt8(ascii: ".") && $1 == UInt8(ascii: ".") }
    }
}

/// Punycode (RFC 3492) for the labels of internationalised domain names, as IDNA writes them
/// (`xn--…`): enough to match a list's Unicode rules against ASCII host names.
enum Punycode {
    /// `domain` with each non-ASCII label encoded, or `nil` when no label needed it.
    static func asciiDomain(_ domain: String) -> String? {
        guard domain.utf8.contains(where: { $0 >= 0x80 }) else { return nil }
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
