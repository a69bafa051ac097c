#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An access token with what it takes to renew it: the credential of ``TokenRefresh``.
public struct OAuthCredential: Sendable, Hashable, Codable {
    /// The token sent with requests.
    public var accessToken: String
    /// The token that buys a new access token, if the server issued one.
    public var refreshToken: String?
    /// When the access token stops working, if known.
    public var expiresAt: Date?

    /// Creates a credential.
    public init(accessToken: String, refreshToken: String? = nil, expiresAt: Date? = nil) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
    }

    /// Creates a credential that expires `expiresIn` after `now` (an OAuth `expires_in`).
    public init(accessToken: String, refreshToken: String? = nil, expiresIn: Duration, now: Date = Date()) {
        self.init(
            accessToken: accessToken,
            refreshToken: refreshToken,
            expiresAt: now.addingTimeInterval(expiresIn.timeInterval)
        )
    }

    /// `true` when the token expires within `margin` of `now`.
    public func needsRefresh(at now: Date = Date(), margin: Duration) -> Bool {
        guard let expiresAt else { return false }
        return expiresAt.timeIntervalSince(now) <= margin.timeInterval
    }
}

extension OAuthCredential: CustomReflectable {
    /// The expiry, never the tokens, for `print` and `dump`.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "accessToken": Redaction.placeholder,
                "refreshToken": refreshToken.map { _ in Redaction.placeholder } as Any, "expiresAt": expiresAt as Any,
            ],
            displayStyle: .struct
        )
    }
}
