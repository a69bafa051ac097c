import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The rules of the cache (RFC 9111, and RFC 5861 for the `stale-*` extensions): what may be
/// stored, how old an entry is, how long it stays fresh, and whether a request may use it. It is
/// a private cache for each user (`CachePartition` keeps users apart), and follows a shared
/// cache's rules for responses to requests with credentials when it serves several users.
struct CachePolicy: Sendable {
    /// The share of `Date − Last-Modified` an entry without explicit freshness stays fresh
    /// (RFC 9111 §4.2.2 suggests 10 %).
    var heuristicFraction: Double
    /// The longest heuristic freshness.
    var maximumHeuristicLifetime: TimeInterval

    /// Statuses whose responses may be stored without explicit freshness (RFC 9110 §15.1).
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]

    /// Statuses whose caching rules this cache implements, for `must-understand`
    /// (RFC 9111 §5.2.2.3): those above, and those stored only with explicit freshness.
    static let understoodStatuses: Set<Int> = heuristicallyCacheable.union([206, 302, 303, 307])

    /// Why a response's own directives forbid storing it, or `nil`: `no-store`, unless
    /// `must-understand` says that a cache which knows the status may store it anyway
    /// (RFC 9111 §5.2.2.3); `must-understand` with a status this cache does not know.
    static func forbiddenToStore(_ control: CacheControl, status: Int) -> String? {
        if control.has("must-understand") {
            return understoodStatuses.contains(status) ? nil : "must-understand, and status \(status) is not understood"
        }
        return control.noStore ? "no-store" : nil
    }

    // MARK: Storing (RFC 9111 §3)

    /// Why a response may not be stored, or `nil` when it may.
    /// `request` is the request as it was sent (with what layers below the cache added, such as
    /// `Authorization`); `credentials` are the fields that tell users apart in a cache that
    /// serves several, `nil` in a single user's.
    func refusal(
        request: Request,
        requestControl: CacheControl,
        response: ResponseData,
        now: Date,
        credentials: CachePartition?
    ) -> String? {
        let control = CacheControl(response.headers)
        let code = response.status.code
        switch request.method {
        case .get: break
        case .post:
            // RFC 9110 §9.3.3: for later GETs, only with explicit freshness and its own URL as
            // Content-Location.
            let location = response.headers[.contentLocation].flatMap { URL(string: $0, relativeTo: request.url) }
            guard control.maxAge != nil || response.headers.contains(.expires),
                let location, CacheEntry.key(for: location.absoluteURL) == CacheEntry.key(for: request.url)
            else { return "a POST response without explicit freshness and its own URL as Content-Location" }
        default: return "only GET and POST responses are stored"
        }
        if requestControl.noStore { return "no-store" }
        if let forbidden = Self.forbiddenToStore(control, status: code) { return forbidden }
        if code == 304 || code < 200 { return "an interim response or a 304" }
        if code == 206, ContentRange(response.headers[.contentRange]) == nil {
            return "a 206 without one byte range in Content-Range"
        }
        if response.headers[values: .vary].contains(where: {
            $0.split(separator: ",").contains { $0.trimmingHTTPWhitespace == "*" }
        }) {
            return "Vary: *"
        }
        // §3.5: a response to a request with credentials is stored only when it says a shared
        // cache may store it, and, in a cache that serves several users, never when it is
        // `private` (qualified or not). In a single user's, Authorization alone counts.
        if credentials?.hasCredentials(request) ?? request.headers.contains(.authorization) {
            if credentials != nil, control.has("private") {
                return "private, and the request carries credentials in a cache shared by users"
            }
            if !control.isPublic, !control.mustRevalidate, control.seconds("s-maxage") == nil {
                return "the request carries credentials and the response is not public"
            }
        }
        let hasExplicitFreshness =
            control.maxAge != nil || response.headers.contains(.expires) || control.isPublic
            || control.has("private")
        let hasValidator = response.headers.contains(.eTag) || response.headers.contains(.lastModified)
        guard hasExplicitFreshness || Self.heuristicallyCacheable.contains(code) else {
            return "status \(code) without explicit freshness"
        }
        // Storing what can neither be served fresh nor revalidated would only take room.
        if !hasValidator, freshnessLifetime(status: code, headers: response.headers, responseDate: now) <= 0,
            !control.has("stale-while-revalidate"), !control.has("stale-if-error")
        {
            return "neither fresh nor revalidatable"
        }
        return nil
    }

    /// The request headers a response's `Vary` names, with the request's values (a digest of
    /// them for a credential field: an entry never holds a token or a cookie); `nil` when a
    /// name is not a field name (then the response is served to nobody, as with `Vary: *`).
    static func varyingHeaders(
        of request: Request,
        response: HTTPFields,
        _ partition: CachePartition
    ) -> [String: String?]? {
        var varying: [String: String?] = [:]
        for value in response[values: .vary] {
            for name in value.split(separator: ",") {
                let name = name.trimmingHTTPWhitespace.lowercasedASCII
                guard !name.isEmpty else { continue }
                guard let fieldName = HTTPField.Name(name) else { return nil }  // served to nobody
                varying[name] = varyingValue(of: request, fieldName, name, partition)
            }
        }
        return varying
    }

    /// Whether `entry` was stored for a request with the same values of its `Vary` headers
    /// (RFC 9111 §4.1: compared after joining the fields and normalising them; by their digests
    /// for credential fields).
    static func matches(_ entry: CacheEntry, _ request: Request, _ partition: CachePartition) -> Bool {
        entry.varyingRequestHeaders.allSatisfy { name, value in
            guard let fieldName = HTTPField.Name(name) else { return false }
            return varyingValue(of: request, fieldName, name, partition) == value
        }
    }

    /// A selecting field's value as an entry keeps it: normalised, and digested when it carries
    /// credentials.
    private static func varyingValue(
        of request: Request,
        _ field: HTTPField.Name,
        _ name: String,
        _ partition: CachePartition
    ) -> String? {
        let value = normalized(request.headers[values: field], of: name)
        guard partition.isCredential(name) else { return value }
        return value.map { partition.digest($0, of: name) }
    }

    /// Fields whose values are case-insensitive (language tags, content codings, charsets).
    private static let caseInsensitiveFields: Set<String> = ["accept-language", "accept-encoding", "accept-charset"]

    /// A selecting field's lines as one value, in a form that two requests with the same meaning
    /// share (RFC 9111 §4.1): lines joined, each list member without the whitespace around it
    /// and with runs of whitespace inside it made one space, lower-cased where the field's values
    /// are case-insensitive. The order of members stays: a server may prefer the first of two
    /// languages of equal weight.
    private static func normalized(_ values: [String], of name: String) -> String? {
        guard !values.isEmpty else { return nil }
        let members = values.flatMap { $0.split(separator: ",") }.map { member in
            member.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
        }.filter { !$0.isEmpty }
        let joined = members.joined(separator: ", ")
        return caseInsensitiveFields.contains(name) ? joined.lowercased() : joined
    }

    // MARK: Age and freshness (RFC 9111 §4.2)

    /// How long the response stays fresh from its `Date`: `max-age`, else `Expires − Date`,
    /// else the heuristic share of `Date − Last-Modified` for statuses that allow it.
    func freshnessLifetime(status: Int, headers: HTTPFields, responseDate: Date) -> TimeInterval {
        let control = CacheControl(headers)
        if control.hasInvalidMaxAge { return 0 }
        if let maxAge = control.maxAge { return TimeInterval(maxAge) }
        let date = headers[.date].flatMap { HTTPDate.parse($0) } ?? responseDate
        if let expires = headers[.expires] {
            // An invalid Expires (`0`, `-1`) means already expired.
            guard let expiry = HTTPDate.parse(expires) else { return 0 }
            return expiry.timeIntervalSince(date)
        }
        guard Self.heuristicallyCacheable.contains(status) || control.isPublic,
            let lastModified = headers[.lastModified].flatMap({ HTTPDate.parse($0) }), lastModified < date
        else { return 0 }
        return min(date.timeIntervalSince(lastModified) * heuristicFraction, maximumHeuristicLifetime)
    }

    /// The entry's current age (`current_age` of RFC 9111 §4.2.3).
    static func age(of entry: CacheEntry, now: Date) -> TimeInterval {
        let date = entry.headers[.date].flatMap { HTTPDate.parse($0) } ?? entry.responseDate
        let apparentAge = max(0, entry.responseDate.timeIntervalSince(date))
        let ageValue = TimeInterval(Self.ageValue(of: entry.headers) ?? 0)
        let correctedAgeValue = ageValue + max(0, entry.responseDate.timeIntervalSince(entry.requestDate))
        return max(apparentAge, correctedAgeValue) + max(0, now.timeIntervalSince(entry.responseDate))
    }

    /// The `Age` field's value (RFC 9111 §5.1): the first member of its first line, without
    /// parameters, or `nil` when that is not a number of seconds (a negative, a fraction, a word
    /// are ignored). `Age: 7200, 0` and two lines `7200` and `0` are 7200 seconds old, as the
    /// caching suite's `age-parse-*` tests require.
    static func ageValue(of headers: HTTPFields) -> Int? {
        guard let line = headers[values: .age].first else { return nil }
        return CacheControl.deltaSeconds(line.prefix { $0 != "," && $0 != ";" }.trimmingHTTPWhitespace)
    }

    // MARK: What is stored (RFC 9111 §3.1)

    /// Fields about one connection rather than the response (RFC 9110 §7.6.1), which a cache
    /// does not store.
    private static let connectionFields: Set<String> = [
        "connection", "keep-alive", "proxy-authenticate", "proxy-authentication-info", "proxy-authorization",
        "proxy-connection", "te", "transfer-encoding", "upgrade",
    ]

    /// The fields that set cookies: never stored, so never replayed to anyone (the response of
    /// the server carries them to the caller, once), as shared caches and browsers' disk caches
    /// do.
    static let cookieFieldNames: Set<String> = ["set-cookie", "set-cookie2"]

    /// The fields of `headers` that set cookies.
    static func cookieFields(of headers: HTTPFields) -> [HTTPField] {
        headers.filter { cookieFieldNames.contains($0.name.canonicalName) }
    }

    /// `headers` as a cache stores them: without the connection's fields and the fields that
    /// `Connection` names (RFC 9111 §3.1), those a qualified `no-cache="…"` names (§5.2.2.4: not
    /// to be reused without validation, so not kept), and `Set-Cookie`.
    static func storable(_ headers: HTTPFields) -> HTTPFields {
        let named = Set(
            headers[values: .connection].flatMap { $0.split(separator: ",") }.map {
                $0.trimmingHTTPWhitespace.lowercased()
            }
        ).union(CacheControl(headers).noCacheFields)
        func isDropped(_ field: HTTPField) -> Bool {
            connectionFields.contains(field.name.canonicalName) || named.contains(field.name.canonicalName)
                || cookieFieldNames.contains(field.name.canonicalName)
        }
        guard headers.contains(where: isDropped) else { return headers }
        return HTTPFields(headers.filter { !isDropped($0) })
    }

    // MARK: Using an entry (RFC 9111 §4, RFC 5861)

    /// What a request may do with a stored entry.
    enum Use: Equatable {
        /// Serve it as it is.
        case fresh
        /// Serve it although stale (the request's `max-stale` allows it).
        case staleAllowed
        /// Serve it and revalidate in the background (`stale-while-revalidate`).
        case staleWhileRevalidate
        /// Ask the server first (a conditional request when the entry has a validator).
        case validate
    }

    func use(of entry: CacheEntry, requestControl: CacheControl, now: Date) -> Use {
        let control = CacheControl(entry.headers)
        if requestControl.noCache || control.noCache { return .validate }
        let age = Self.age(of: entry, now: now)
        let lifetime = freshnessLifetime(
            status: entry.status.code,
            headers: entry.headers,
            responseDate: entry.responseDate
        )
        // `max-age=0` asks for a response from the server, whatever the entry's age (as browsers
        // and OkHttp read it); but a fresh `immutable` response is not validated on such a reload,
        // only on a forced one (`no-cache`, above; RFC 8246 §2).
        if let maxAge = requestControl.maxAge, maxAge == 0 || age > TimeInterval(maxAge),
            !(control.has("immutable") && lifetime > age)
        {
            return .validate
        }
        if requestControl.hasInvalidMaxAge { return .validate }
        let freshFor = lifetime - age
        if let minFresh = requestControl.minFresh { guard freshFor >= TimeInterval(minFresh) else { return .validate } }
        if freshFor > 0 { return .fresh }
        if control.mustRevalidate { return .validate }  // §4.2.4: never served stale
        let staleness = -freshFor
        if let maxStale = requestControl.maxStale, maxStale == Int.max || staleness <= TimeInterval(maxStale) {
            return .staleAllowed
        }
        if let window = control.staleWhileRevalidate, staleness <= TimeInterval(window) { return .staleWhileRevalidate }
        return .validate
    }

    /// Whether a stale entry may answer in place of an error (`stale-if-error` of the response or
    /// the request, RFC 5861 §4).
    func mayServeOnError(_ entry: CacheEntry, requestControl: CacheControl, now: Date) -> Bool {
        let control = CacheControl(entry.headers)
        guard !control.mustRevalidate else { return false }
        guard let window = requestControl.staleIfError ?? control.staleIfError else { return false }
        let lifetime = freshnessLifetime(
            status: entry.status.code,
            headers: entry.headers,
            responseDate: entry.responseDate
        )
        return Self.age(of: entry, now: now) - lifetime <= TimeInterval(window)
    }

    // MARK: Validation (RFC 9111 §4.3)

    /// The conditional request for `entry`: `If-None-Match` with its `ETag`, `If-Modified-Since`
    /// with its `Last-Modified`. `nil` when the entry has no validator.
    static func conditional(_ request: Request, for entry: CacheEntry) -> Request? {
        let etag = entry.headers[.eTag]
        let lastModified = entry.headers[.lastModified]
        guard etag != nil || lastModified != nil else { return nil }
        var request = request
        if let etag { request.headers[.ifNoneMatch] = etag }
        if let lastModified { request.headers[.ifModifiedSince] = lastModified }
        return request
    }

    /// Whether a 200 to a `HEAD` describes the stored `GET` response (RFC 9111 §4.3.5): the
    /// validators it carries are the stored ones, and its `Content-Length`, when it has one, is
    /// the stored body's.
    static func describes(_ entry: CacheEntry, headResponse headers: HTTPFields) -> Bool {
        for name in [HTTPField.Name.eTag, .lastModified] {
            if let value = headers[name], value != entry.headers[name] { return false }
        }
        guard let length = headers[.contentLength] else { return true }
        return length == entry.headers[.contentLength] || Int(length) == entry.body.length
    }

    /// Fields a 304 does not replace in the stored response (RFC 9111 §3.2).
    private static let keptOnUpdate: Set<String> = [
        "content-length", "content-encoding", "transfer-encoding", "content-range",
    ]

    /// The entry after a 304: its headers replaced by the 304's fields of the same names.
    static func updated(
        _ entry: CacheEntry,
        with notModified: HTTPFields,
        requestDate: Date,
        responseDate: Date
    ) -> CacheEntry {
        var entry = entry
        let notModified = storable(notModified)
        let names = Set(notModified.map(\.name)).filter { !keptOnUpdate.contains($0.canonicalName) }
        for name in names { entry.headers[values: name] = notModified[values: name] }
        // The old Age was the age of the old response; a 304 without Date is dated now.
        if notModified[.age] == nil { entry.headers[.age] = nil }
        if notModified[.date] == nil { entry.headers[.date] = nil }
        entry.requestDate = requestDate
        entry.responseDate = responseDate
        return entry
    }
}
