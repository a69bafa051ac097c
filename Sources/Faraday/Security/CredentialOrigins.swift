import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Request {
    /// Whether the request goes to one of its ``RequestOptions/credentialOrigins`` (always, when
    /// the list is empty). An https origin and the http one of the same host are different
    /// origins: credentials never go from one to the other.
    public var isToCredentialOrigin: Bool {
        if let homeURL, homeURL.url == url, homeURL.credentialOrigins == options.credentialOrigins { return true }
        let allowed = options.credentialOrigins
        guard !allowed.isEmpty else { return true }
        guard let origin = Origin(url) else { return false }
        // The entries a connection writes are `Origin` descriptions: comparing with them settles
        // the usual case without parsing a URL (or making a string) per request.
        return allowed.contains { origin.isWritten(as: $0) || URL(string: $0).flatMap(Origin.init) == origin }
    }

    /// Removes the credential headers (those ``Redaction/credentialHeaders`` names) that still
    /// hold the value `defaults` gave them, and the credential query parameters (``Redaction/credentialNames``)
    /// that still hold the value `defaultParams` gave them, when the request leaves its credential
    /// origins: a path or URL moved elsewhere after the defaults were applied keeps its query.
    mutating func dropDefaultCredentials(
        _ defaults: HTTPFields,
        params defaultParams: Params = Params(),
        isToCredentialOrigin: Bool? = nil
    ) {
        guard !(isToCredentialOrigin ?? self.isToCredentialOrigin) else { return }
        for field in defaults where headers[field.name] == field.value {
            if field.carriesCredentials { headers[field.name] = nil }
        }
        let credentials = defaultParams.filter { Redaction.matches($0.name, Redaction.credentialNames) }
        guard !credentials.isEmpty else { return }
        var params = self.params
        let stale = credentials.filter { params[$0.name] == $0.value }
        guard !stale.isEmpty else { return }
        for entry in stale { params[entry.name] = nil }
        self.params = params
    }
}

extension HTTPFields {
    /// These fields without those that carry credentials (the names ``Redaction/credentialHeaders``
    /// lists, whatever their case): what a request to a URL a server named may keep of the
    /// caller's own headers.
    var withoutCredentials: HTTPFields {
        HTTPFields(filter { !$0.carriesCredentials })
    }
}

extension HTTPField {
    /// Whether the field is one of the credential headers (``Redaction/credentialHeaders``,
    /// whatever its case).
    var carriesCredentials: Bool { Redaction.matches(name.rawName, Redaction.credentialHeaders) }
}

/// An origin as RFC 6454 defines it: scheme, host and port, compared after lowercasing, with the
/// scheme's default port filled in. `example.com.` and `example.com` are different origins, as
/// browsers hold: credentials fail closed.
package struct Origin: Hashable, Sendable, CustomStringConvertible {
    let scheme: String
    let host: String
    let port: Int

    package init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercasedCheaply, let host = url.host?.lowercasedCheaply, !host.isEmpty,
            let port = url.port ?? (scheme == "https" || scheme == "wss" ? 443 : scheme == "http" ? 80 : nil)
        else { return nil }
        (self.scheme, self.host, self.port) = (scheme, host, port)
    }

    /// `https://api.example.com:443`: the origin alone, no user info, path or query.
    package var description: String { "\(scheme)://\(host):\(port)" }

    /// Whether `text` is this origin's ``description``, compared on the bytes without making one.
    func isWritten(as text: String) -> Bool {
        var (text, scheme, host) = (text, scheme, host)
        return text.withUTF8 { text in
            scheme.withUTF8 { scheme in
                host.withUTF8 { host in
                    var rest = text[...]
                    func take(_ part: UnsafeBufferPointer<UInt8>) -> Bool {
                        guard rest.starts(with: part) else { return false }
                        rest = rest.dropFirst(part.count)
                        return true
                    }
                    func take(_ byte: UInt8) -> Bool {
                        guard rest.first == byte else { return false }
                        rest = rest.dropFirst()
                        return true
                    }
                    let slash = UInt8(ascii: "/")
                    guard take(scheme), take(UInt8(ascii: ":")), take(slash), take(slash), take(host),
                        take(UInt8(ascii: ":")), !rest.isEmpty, rest.count <= 5
                    else { return false }
                    var port = 0
                    for byte in rest {
                        guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return false }
                        port = port * 10 + Int(byte - UInt8(ascii: "0"))
                    }
                    return port == self.port
                }
            }
        }
    }
}
