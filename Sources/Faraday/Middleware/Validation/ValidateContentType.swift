#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Fails a response whose `Content-Type` is not one the request accepts (Alamofire's
/// `validate(contentType:)`).
///
/// The acceptable types are the handler's ``Handler/acceptableContentTypes`` or, when it has
/// none, the request's `Accept` header (`*/*` when absent). Wildcards match both ways
/// (`application/*`, `*/*`), parameters are ignored, and the most specific matching range
/// decides, so `q=0` refuses a type that a wildcard would allow. Responses
/// with an empty body pass (a 204 has nothing to mistake); a non-empty body without a content
/// type fails unless `*/*` is acceptable.
///
/// ```swift
/// builder.use(ValidateContentType.Handler())
/// builder.use(DecodeJSON.Handler())   // below: its Accept is in place when the check runs
/// ```
///
/// The error's code is ``FaradayError/Code/unacceptableContentType`` and it carries the response.
public struct ValidateContentType: Middleware {
    /// The app below.
    public let app: any App
    /// The handler's settings.
    public let handler: Handler

    /// Builds ``ValidateContentType``.
    public struct Handler: Faraday.Handler {
        /// The acceptable media types; empty means "what the request's `Accept` says".
        public var acceptableContentTypes: [String]

        /// Creates the handler.
        public init(acceptableContentTypes: [String] = []) {
            self.acceptableContentTypes = acceptableContentTypes
        }

        public func build(app: any App) -> any Middleware { ValidateContentType(app: app, handler: self) }
    }

    public func onComplete(_ env: inout Env) throws {
        guard let response = env.response, !response.body.isEmpty else { return }
        let acceptable =
            handler.acceptableContentTypes.isEmpty
            ? MediaRange.parse(env.request.headers[values: .accept].joined(separator: ","))
            : handler.acceptableContentTypes.compactMap(MediaRange.init)
        let ranges = acceptable.isEmpty ? [MediaRange.any] : acceptable
        let actual = response.headers.contentType.flatMap(MediaRange.init)
        // The most specific range that matches decides (RFC 9110 §12.5.1); no content type at all
        // is only acceptable to `*/*`.
        let deciding = ranges.filter { actual.map($0.matches) ?? ($0.specificity == 0) }
            .max { $0.specificity < $1.specificity }
        if let deciding, deciding.quality > 0 { return }
        let expected = ranges.filter { $0.quality > 0 }.map(\.description).joined(separator: ", ")
        throw FaradayError(
            .unacceptableContentType,
            "The response's content type \(response.headers.contentType ?? "(none)") is not one the request accepts (\(expected)).",
            method: env.request.method,
            url: env.request.url,
            response: response
        )
    }
}

/// A media type or range from `Accept` or `Content-Type`: `type/subtype`, either part `*`.
struct MediaRange: Hashable, CustomStringConvertible {
    static let any = MediaRange(type: "*", subtype: "*", quality: 1)

    let type: String
    let subtype: String
    let quality: Double

    init(type: String, subtype: String, quality: Double) {
        self.type = type
        self.subtype = subtype
        self.quality = quality
    }

    /// Parses one `type/subtype;params`, or `nil` when it is not of that shape.
    init?(_ text: String) {
        let pieces = text.split(separator: ";").map { $0.trimmingWhitespace() }
        let halves = (pieces.first ?? "").lowercased().split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2, !halves[0].isEmpty, !halves[1].isEmpty else { return nil }
        let q = pieces.dropFirst().first { $0.lowercased().hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) }
        self.init(type: String(halves[0]), subtype: String(halves[1]), quality: q ?? 1)
    }

    /// Every range of a comma-separated header value that parses.
    static func parse(_ header: String) -> [MediaRange] {
        header.split(separator: ",").compactMap { MediaRange(String($0)) }
    }

    /// 2 for `type/subtype`, 1 for `type/*`, 0 for `*/*`.
    var specificity: Int { type == "*" ? 0 : subtype == "*" ? 1 : 2 }

    func matches(_ other: MediaRange) -> Bool {
        (type == "*" || other.type == "*" || type == other.type)
            && (subtype == "*" || other.subtype == "*" || subtype == other.subtype)
    }

    var description: String { "\(type)/\(subtype)" }
}
