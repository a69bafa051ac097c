import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A stored response: what ``HTTPCache`` keeps in a ``CacheStore`` and serves from it.
public struct CacheEntry: Sendable {
    /// The URL the response answered (without fragment).
    public var url: URL
    /// The values the request had for each header the response's `Vary` names (lowercased
    /// names; an absent header is `nil`; for a field with credentials, such as `Authorization`
    /// or `Cookie`, a keyed digest of the value, never the value): this entry serves only
    /// requests with the same values.
    public var varyingRequestHeaders: [String: String?]
    /// The response status.
    public var status: HTTPResponse.Status
    /// The response headers as stored (updated by each revalidation).
    public var headers: HTTPFields
    /// The whole response body, in memory or in a store's file.
    public var body: ResponseBody
    /// When the request that brought the response was sent (RFC 9111 `request_time`).
    public var requestDate: Date
    /// When the response arrived (RFC 9111 `response_time`).
    public var responseDate: Date

    /// Creates an entry.
    public init(
        url: URL,
        varyingRequestHeaders: [String: String?] = [:],
        status: HTTPResponse.Status,
        headers: HTTPFields,
        body: ResponseBody,
        requestDate: Date,
        responseDate: Date
    ) {
        self.url = url
        self.varyingRequestHeaders = varyingRequestHeaders
        self.status = status
        self.headers = headers
        self.body = body
        self.requestDate = requestDate
        self.responseDate = responseDate
    }

    /// The store's key for a request without credentials: its URL without fragment (a request
    /// with credentials adds their digest to it). Variants of one URL (`Vary`) share the key and
    /// differ in ``varyingRequestHeaders``.
    public static func key(for url: URL) -> String {
        guard url.fragment != nil, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return url.absoluteString
        }
        components.fragment = nil
        return components.url?.absoluteString ?? url.absoluteString
    }

    /// An estimate of the memory the entry takes: body, header text and a fixed overhead.
    var size: Int {
        (body.length ?? 0) + headers.reduce(0) { $0 + $1.name.rawName.utf8.count + $1.value.utf8.count + 4 } + 256
    }
}

extension CacheEntry: CustomReflectable {
    /// The entry through ``Redaction``: its URL, the credential request headers it varies on,
    /// its credential response headers, and the body's size only.
    public var customMirror: Mirror {
        let redaction = Redaction()
        var varying: [String: String?] = [:]
        for (name, value) in varyingRequestHeaders {
            varying[name] =
                Redaction.matches(name, redaction.headers) ? value.map { _ in redaction.replacement } : value
        }
        return Mirror(
            self,
            children: [
                "url": redaction.redacting(url), "varyingRequestHeaders": varying,
                "status": status, "headers": redaction.redact(headers), "body": "\(body.length ?? 0) bytes",
                "requestDate": requestDate, "responseDate": responseDate,
            ],
            displayStyle: .struct
        )
    }
}
