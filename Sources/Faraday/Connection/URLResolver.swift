import Foundation

/// How a request path combines with a connection's base URL.
public struct PathResolution: Sendable, Hashable {
    private enum Kind: Hashable, Sendable { case underBasePath, hostAbsolute }
    private let kind: Kind

    /// The path goes under the base URL's path, with or without a leading `/`
    /// (`https://x/v1` + `/users` → `https://x/v1/users`). The default.
    public static let underBasePath = PathResolution(kind: .underBasePath)
    /// A path with a leading `/` replaces the base path (`https://x/v1` + `/status` → `https://x/status`).
    public static let hostAbsolute = PathResolution(kind: .hostAbsolute)

    var isHostAbsolute: Bool { kind == .hostAbsolute }
}

/// Turns a base URL and a request path into an absolute URL, following the fixed URL rules.
enum URLResolver {
    /// The absolute URL for `path`, and its query split off (percent-encoded, without `?`).
    ///
    /// - A full `http`/`https` URL replaces the base.
    /// - A `//host` path is refused: it would switch host silently.
    /// - Any other path is relative to the base (see ``PathResolution``); characters not allowed in
    ///   a path are percent-encoded, existing valid escapes are kept, and fragments are dropped.
    static func resolve(
        _ path: String,
        against base: URL?,
        resolution: PathResolution
    ) throws(FaradayError) -> (url: URL, query: String?) {
        if path.hasPrefix("//") {
            throw FaradayError(
                .invalidURL,
                "The path \(path.debugDescription) would switch to another host; pass a full URL (https://…) to call another host.")
        }
        let withoutFragment = path.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let pieces = withoutFragment.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let pathPart = String(pieces.first ?? "")
        let query = pieces.count > 1 ? escape(String(pieces[1]), allowed: queryAllowed) : nil

        if let scheme = schemeOf(pathPart) {
            guard scheme == "http" || scheme == "https" else {
                throw FaradayError(.invalidURL, "Only http and https URLs can be requested, not \(scheme):.")
            }
            guard let url = URL(string: escape(pathPart, allowed: urlAllowed)), url.host?.isEmpty == false else {
                throw FaradayError(.invalidURL, "\(path.debugDescription) is not a valid URL.")
            }
            return (url, query)
        }

        guard let base else {
            throw FaradayError(.invalidURL, "The path \(path.debugDescription) is relative and the connection has no base URL.")
        }
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else {
            throw FaradayError(.invalidURL, "The base URL \(base) is not valid.")
        }
        let escapedPath = escape(pathPart, allowed: pathAllowed)
        if resolution.isHostAbsolute && escapedPath.hasPrefix("/") {
            components.percentEncodedPath = escapedPath
        } else {
            let basePath = components.percentEncodedPath
            let relative = escapedPath.drop { $0 == "/" }
            if relative.isEmpty {
                components.percentEncodedPath = basePath
            } else {
                components.percentEncodedPath = (basePath.hasSuffix("/") ? basePath : basePath + "/") + relative
            }
        }
        components.percentEncodedQuery = nil
        components.fragment = nil
        guard let url = components.url else {
            throw FaradayError(.invalidURL, "The path \(path.debugDescription) does not make a valid URL with \(base).")
        }
        return (url, query)
    }

    /// Checks that a connection's base URL can take paths: http or https, with a host.
    static func validateBase(_ string: String) throws(FaradayError) -> URL {
        guard let scheme = schemeOf(string), scheme == "http" || scheme == "https",
            let url = URL(string: escape(string, allowed: urlAllowed)), url.host?.isEmpty == false
        else {
            throw FaradayError(.invalidURL, "\(string.debugDescription) is not a valid http or https base URL.")
        }
        return url
    }

    private static func schemeOf(_ string: String) -> String? {
        guard let colon = string.firstIndex(of: ":") else { return nil }
        let scheme = string[..<colon]
        guard let first = scheme.first, first.isASCII, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        return scheme.lowercased()
    }

    private static let pathAllowed = CharacterSet.urlPathAllowed
    private static let queryAllowed = CharacterSet.urlQueryAllowed
    private static let urlAllowed = CharacterSet.urlPathAllowed.union(.urlHostAllowed).union(CharacterSet(charactersIn: ":/[]@"))

    /// Percent-encodes what `allowed` does not contain, keeping valid `%XX` escapes and encoding a
    /// `%` that does not start one.
    static func escape(_ string: String, allowed: CharacterSet) -> String {
        var result = ""
        result.reserveCapacity(string.utf8.count)
        let scalars = Array(string.unicodeScalars)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "%" {
                let isEscape = index + 2 < scalars.count
                    && scalars[index + 1].properties.isASCIIHexDigit && scalars[index + 2].properties.isASCIIHexDigit
                result += isEscape ? "%" : "%25"
            } else if allowed.contains(scalar) {
                result.unicodeScalars.append(scalar)
            } else {
                for byte in String(scalar).utf8 { result += String(format: "%%%02X", byte) }
            }
            index += 1
        }
        return result
    }
}
