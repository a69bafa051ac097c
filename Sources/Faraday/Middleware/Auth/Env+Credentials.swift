#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Env {
    /// Whether credential middleware may add its credential: the request goes to one of its
    /// ``RequestOptions/credentialOrigins`` and is not a redirect that left its origin
    /// (``isCrossOriginRedirect``). ``Authorization`` and ``TokenRefresh`` ask it; a middleware
    /// of your own that adds credentials should too.
    public var mayCarryCredentials: Bool { !isCrossOriginRedirect && request.isToCredentialOrigin }
}

extension Env {
    /// Why the stack sent this request without credentials, when it withheld them and the
    /// request carries none of its own: it went to another origin than its credential origins
    /// (a full URL, a `Link` page, a redirect), so ``Authorization`` added none and the
    /// connection's default credential headers and parameters were left off. `nil` otherwise.
    /// A status error for 401, 403 or 407 says it (``FaradayError/statusError(for:allowing:)``).
    public var withheldCredentials: String? {
        guard !mayCarryCredentials,
            !request.headers.contains(where: \.carriesCredentials)
        else { return nil }
        if isCrossOriginRedirect {
            return "No credentials were sent: a redirect left the origin the call started on."
        }
        let origin = Origin(request.url)?.description ?? request.url.absoluteString
        let origins = request.options.credentialOrigins
        var reason =
            "No credentials were sent: \(origin) is not one of the credential origins (\(origins.joined(separator: ", ")))."
        // A server on this machine answers to all three names, so the mismatch is easy to miss.
        let loopback = ["localhost", "127.0.0.1", "::1"]
        if let host = request.url.host?.lowercased(), loopback.contains(host),
            origins.contains(where: { origin in loopback.contains { $0 != host && origin.contains("//\($0)") } })
        {
            reason += " localhost, 127.0.0.1 and [::1] are different origins."
        }
        return reason
    }
}
