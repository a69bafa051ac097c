#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a request path combines with a connection's base URL.
public struct PathResolution: Sendable, Hashable {
    private enum Kind: Hashable, Sendable { case underBasePath, hostAbsolute }
    private let kind: Kind

    /// The path goes under the base URL's path, with or without a leading `/`
    /// (`https://x/v1` + `/users` → `https://x/v1/users`). The default.
    public static let underBasePath = PathResolution(kind: .underBasePath)
    /// A path with a leading `/` replaces the base path (`https://x/v1` + `/status` → `https://x/status`).
    public static let hostAbsolute = PathResolution(kind: .hostAbsolute)
}

/// A connection's base URL, split once into the parts request paths go between. A class: every
/// request and every copy of its env carries it, as one reference.
final class BaseURL: Sendable {
    /// The URL as given.
    let url: URL
    /// Scheme and authority, percent-encoded (`https://api.example.com:8443`); `nil` when the URL
    /// cannot be taken apart.
    let origin: String?
    /// The path, percent-encoded (`/v1`, or empty).
    let path: String
    /// The paths resolved under it lately.
    let resolvedPaths = ResolvedPaths()

    init(_ url: URL) {
        self.url = url
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            (origin, path) = (nil, "")
            return
        }
        path = components.percentEncodedPath
        components.percentEncodedPath = ""
        components.percentEncodedQuery = nil
        components.fragment = nil
        origin = components.string
    }
}

/// Turns a base URL and a request path into an absolute URL, following the fixed URL rules.
enum URLResolver {
    /// The absolute URL for `path`, its query split off (percent-encoded, without `?`), and
    /// whether the URL was made under the base (and so has the base's origin).
    ///
    /// - A full `http`/`https` URL replaces the base.
    /// - A `//host` path is refused: it would switch host silently.
    /// - Any other path is relative to the base (see ``PathResolution``); characters not allowed in
    ///   a path are percent-encoded, existing valid escapes are kept, and fragments are dropped.
    static func resolve(
        _ path: String,
        against base: BaseURL?,
        resolution: PathResolution
    ) throws(FaradayError) -> (url: URL, query: String?, isUnderBase: Bool) {
        if let remembered = base?.resolvedPaths.url(for: path, resolution) { return (remembered, nil, true) }
        if path.hasPrefix("//") {
            throw FaradayError(
                .invalidURL,
                "The path \(redacted(path)) would switch to another host; pass a full URL (https://…) to call another host."
            )
        }
        let withoutFragment = path[..<(path.utf8.firstIndex(of: UInt8(ascii: "#")) ?? path.endIndex)]
        let questionMark = withoutFragment.utf8.firstIndex(of: UInt8(ascii: "?"))
        let pathPart = String(withoutFragment[..<(questionMark ?? withoutFragment.endIndex)])
        let query = questionMark.map {
            escape(String(withoutFragment[withoutFragment.index(after: $0)...]), allowed: queryAllowed)
        }

        if let scheme = schemeOf(pathPart) {
            guard scheme == "http" || scheme == "https" else {
                throw FaradayError(.invalidURL, "Only http and https URLs can be requested, not \(scheme):.")
            }
            guard let url = URL(string: escape(pathPart, allowed: urlAllowed)), url.host?.isEmpty == false else {
                throw FaradayError(.invalidURL, "\(redacted(path)) is not a valid URL.")
            }
            try HostCheck.check(url)
            return (url, query, false)
        }

        guard let base else {
            throw FaradayError(
                .invalidURL,
                "The path \(redacted(path)) is relative and the connection has no base URL."
            )
        }
        guard let origin = base.origin else {
            throw FaradayError(.invalidURL, "The base URL \(Redaction().redacting(base.url)) is not valid.")
        }
        // Most paths need no escaping; checking that costs far less than escaping.
        let escapedPath = pathPart.utf8.allSatisfy(isPathByte) ? pathPart : escape(pathPart, allowed: pathAllowed)
        let fullPath: String
        if resolution == .hostAbsolute && escapedPath.hasPrefix("/") {
            fullPath = escapedPath
        } else {
            let relative = escapedPath.drop { $0 == "/" }
            if relative.isEmpty {
                fullPath = base.path
            } else {
                fullPath = (base.path.hasSuffix("/") ? base.path : base.path + "/") + relative
            }
        }
        guard let url = URL(string: origin + fullPath) else {
            throw FaradayError(
                .invalidURL,
                "The path \(redacted(path)) does not make a valid URL with \(Redaction().redacting(base.url))."
            )
        }
        base.resolvedPaths.remember(url, for: path, resolution)
        return (url, query, true)
    }

    /// A path or URL for an error message: quoted, user info and credential query values hidden.
    private static func redacted(_ text: String) -> String {
        Redaction().redacting(urlText: text).debugDescription
    }

    /// A byte a path may hold as it is (RFC 3986 `pchar` and `/`, without `%`).
    private static func isPathByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "!"),
            UInt8(ascii: "$"),
            UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"),
            UInt8(ascii: "+"),
            UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "@"),
            UInt8(ascii: "/"):
            true
        default: false
        }
    }

    /// Checks that a connection's base URL can take paths: http or https, with a host.
    static func validateBase(_ string: String) throws(FaradayError) -> URL {
        guard let scheme = schemeOf(string), scheme == "http" || scheme == "https",
            let url = URL(string: escape(string, allowed: urlAllowed)), url.host?.isEmpty == false
        else {
            throw FaradayError(.invalidURL, "\(redacted(string)) is not a valid http or https base URL.")
        }
        try HostCheck.check(url)
        return url
    }

    private static func schemeOf(_ string: String) -> String? {
        guard let colon = string.utf8.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let scheme = string[..<colon]
        guard let first = scheme.first, first.isASCII, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        return scheme.lowercased()
    }

    /// What a path keeps unescaped: Foundation's `CharacterSet.urlPathAllowed`, and `;` as the
    /// path's fast check (`isPathByte`) keeps it.
    private static let pathAllowed = AllowedASCII(":@/")
    /// What a query keeps (`CharacterSet.urlQueryAllowed`).
    private static let queryAllowed = AllowedASCII(":@/?")
    /// What a whole URL keeps: a path's and a host's characters, and `[]` around an IPv6 host.
    private static let urlAllowed = AllowedASCII(":@/[]")

    /// Percent-encodes what `allowed` does not contain, keeping valid `%XX` escapes and encoding a
    /// `%` that does not start one.
    static func escape(_ string: String, allowed: AllowedASCII) -> String {
        var result = ""
        result.reserveCapacity(string.utf8.count)
        let scalars = Array(string.unicodeScalars)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "%" {
                let isEscape =
                    index + 2 < scalars.count
                    && scalars[index + 1].properties.isASCIIHexDigit && scalars[index + 2].properties.isASCIIHexDigit
                result += isEscape ? "%" : "%25"
            } else if allowed.contains(scalar) {
                result.unicodeScalars.append(scalar)
            } else {
                for byte in String(scalar).utf8 { result += byte.percentEscaped }
            }
            index += 1
        }
        return result
    }
}

/// The ASCII characters a URL component keeps unescaped (RFC 3986): the unreserved characters,
/// the sub-delimiters, and the component's own.
struct AllowedASCII: Sendable {
    private let table: [Bool]

    init(_ own: String) {
        var table = [Bool](repeating: false, count: 128)
        let unreservedAndSubDelimiters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;="
        for byte in (unreservedAndSubDelimiters + own).utf8 { table[Int(byte)] = true }
        self.table = table
    }

    func contains(_ scalar: Unicode.Scalar) -> Bool { scalar.isASCII && table[Int(scalar.value)] }
}

/// Paths resolved under one base URL, remembered: a client calls the same endpoints again and
/// again, and making their `URL` (Foundation's RFC 3986 parse, about 1 µs and three allocations) is
/// most of what resolving a path costs. Each ``BaseURL`` has its own, so a new base URL starts with
/// none.
///
/// Only short paths without a query are remembered: a query changes from call to call (a page, a
/// search) and may carry a credential (`?api_key=…`), which a memory that lives as long as the
/// connection should not keep.
struct ResolvedPaths: Sendable {
    /// How many paths are remembered; when one more comes, all are forgotten (an API with an id in
    /// every path would turn any order of eviction over all the same).
    static let capacity = 64
    /// The longest path remembered, in UTF-8 bytes.
    static let longestPath = 256

    /// Whether `path` may be remembered: short, without a query, and ASCII, for which `String`'s
    /// `==` and hash are those of the bytes (for others `==` would take a decomposed `é` for a
    /// precomposed one, whose escapes differ).
    static func remembers(_ path: String) -> Bool {
        guard path.utf8.count <= longestPath else { return false }
        for byte in path.utf8 where byte >= 0x80 || byte == UInt8(ascii: "?") { return false }
        return true
    }

    /// The remembered URLs, by path, for each way of resolving one.
    private struct Entries {
        var underBasePath: [String: URL] = [:]
        var hostAbsolute: [String: URL] = [:]
    }

    private let entries = Locked(Entries())

    /// The URL `path` resolved to before, if it is remembered.
    func url(for path: String, _ resolution: PathResolution) -> URL? {
        guard Self.remembers(path) else { return nil }
        return entries.withLock { resolution == .hostAbsolute ? $0.hostAbsolute[path] : $0.underBasePath[path] }
    }

    /// Remembers the URL of a path resolved under the base, unless ``remembers(_:)`` says no.
    func remember(_ url: URL, for path: String, _ resolution: PathResolution) {
        guard Self.remembers(path) else { return }
        entries.withLock { entries in
            if resolution == .hostAbsolute {
                Self.insert(url, for: path, into: &entries.hostAbsolute)
            } else {
                Self.insert(url, for: path, into: &entries.underBasePath)
            }
        }
    }

    private static func insert(_ url: URL, for path: String, into entries: inout [String: URL]) {
        guard entries[path] == nil else { return }  // resolved by another call meanwhile
        if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
        entries[path] = url
    }
}
