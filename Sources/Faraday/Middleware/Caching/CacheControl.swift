import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The directives of the `Cache-Control` fields of a request or a response (RFC 9111 §5.2),
/// with `Pragma: no-cache` read as `no-cache` on a request that has no `Cache-Control`.
///
/// Names are case-insensitive; a directive given twice keeps its first value; a value may be a
/// token or a quoted string; a delta-seconds value that is not a number is ignored, as if the
/// directive were absent, except where the RFC says to treat it as stale (`max-age`).
struct CacheControl: Sendable, Equatable {
    private var directives: [String: String] = [:]
    /// Directives written with whitespace around `=`: present, without a usable argument.
    private var malformed: Set<String> = []

    init(_ headers: HTTPFields, isRequest: Bool = false) {
        for value in headers[values: .cacheControl] { read(value) }
        if isRequest, directives.isEmpty,
            headers[values: Self.pragma].contains(where: {
                $0.trimmingHTTPWhitespace.equalsIgnoringASCIICase("no-cache")
            })
        {
            directives["no-cache"] = ""
        }
    }

    private static let pragma = HTTPField.Name("Pragma")!  // a constant, valid name

    private mutating func read(_ value: String) {
        var rest = Substring(value)
        while !rest.isEmpty {
            // A directive: a token, then an optional `=token` or `="quoted string"`.
            let nameEnd = rest.firstIndex { $0 == "=" || $0 == "," } ?? rest.endIndex
            let rawName = rest[..<nameEnd]
            let name = rawName.trimmingHTTPWhitespace.lowercasedASCII
            rest = rest[nameEnd...]
            var argument = ""
            var isMalformed = false
            if rest.first == "=" {
                // No whitespace around `=` in the grammar (RFC 9111 §5.2): `max-age =3600` and
                // `max-age= 3600` are invalid max-ages (the response is stale). The directive stays
                // present, so that a malformed `no-cache ="x"` or `private ="x"` still restricts.
                isMalformed = rawName.last == " " || rawName.last == "\t"
                rest = rest.dropFirst()
                if rest.first == "\"" {
                    rest = rest.dropFirst()
                    var escaped = false
                    var text = ""
                    while let character = rest.first {
                        rest = rest.dropFirst()
                        if escaped {
                            text.append(character)
                            escaped = false
                        } else if character == "\\" {
                            escaped = true
                        } else if character == "\"" {
                            break
                        } else {
                            text.append(character)
                        }
                    }
                    argument = text
                    rest = rest.drop { $0 != "," }
                } else {
                    let end = rest.firstIndex(of: ",") ?? rest.endIndex
                    let value = rest[..<end]
                    argument =
                        value.first == " " || value.first == "\t" ? String(value) : String(value.trimmingHTTPWhitespace)
                    rest = rest[end...]
                }
            }
            rest = rest.drop { $0 == "," || $0 == " " || $0 == "\t" }
            if !name.isEmpty, directives[name] == nil {
                directives[name] = argument
                if isMalformed { malformed.insert(name) }
            }
        }
    }

    /// Whether the directive is present, with or without an argument.
    func has(_ name: String) -> Bool { directives[name] != nil }

    /// The directive's argument as delta-seconds, or `nil` when absent or not a number. A value
    /// past `Int32.max` counts as `Int32.max` seconds (RFC 9111 §1.2.2).
    func seconds(_ name: String) -> Int? {
        guard !malformed.contains(name) else { return nil }
        return directives[name].flatMap(Self.deltaSeconds)
    }

    /// `text` as delta-seconds (RFC 9111 §1.2.2): digits only, leading zeros allowed, past
    /// `Int32.max` read as `Int32.max`; `nil` for anything else.
    static func deltaSeconds(_ text: some StringProtocol) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return nil
        }
        let digits = text.drop { $0 == "0" }
        guard digits.utf8.count <= 10 else { return Int(Int32.max) }
        return Swift.min(Int(digits) ?? 0, Int(Int32.max))
    }

    var noStore: Bool { has("no-store") }
    /// `no-cache` without field names: every use of the response is validated first. A malformed
    /// argument counts as none.
    var noCache: Bool { has("no-cache") && noCacheFields.isEmpty }
    /// The field names of a qualified `no-cache="a, b"` on a response (RFC 9111 §5.2.2.4): the
    /// response may be reused without validation, but not those fields.
    var noCacheFields: Set<String> {
        guard let argument = directives["no-cache"], !malformed.contains("no-cache") else { return [] }
        return Set(
            argument.split(separator: ",").map { $0.trimmingHTTPWhitespace.lowercasedASCII }.filter { !$0.isEmpty }
        )
    }
    var isPublic: Bool { has("public") }
    /// `must-revalidate` (`proxy-revalidate` binds shared caches only, RFC 9111 §5.2.2.8).
    var mustRevalidate: Bool { has("must-revalidate") }
    var maxAge: Int? { seconds("max-age") }
    /// A `max-age` whose argument is not a number: the response is stale (RFC 9111 §4.2.1).
    var hasInvalidMaxAge: Bool { has("max-age") && maxAge == nil }
    var onlyIfCached: Bool { has("only-if-cached") }
    var minFresh: Int? { seconds("min-fresh") }
    var staleWhileRevalidate: Int? { seconds("stale-while-revalidate") }
    var staleIfError: Int? { seconds("stale-if-error") }

    /// `max-stale` on a request: `nil` when absent, `Int.max` without an argument (any staleness).
    var maxStale: Int? {
        guard let argument = directives["max-stale"] else { return nil }
        return argument.isEmpty ? Int.max : seconds("max-stale")
    }
}
