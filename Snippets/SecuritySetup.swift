// Security: TLS, certificate pinning, redaction of secrets in logs, and redirects.
// snippet.hide
import Faraday
import FaradayAsyncHTTPClient
import Foundation
import Logging

let companyCABundle = ""
let clientPEM = ""
let keyPEM = ""
// snippet.show

// snippet.tls
var options = RequestOptions()
options.tls.trustRoots = try TLSCertificate.certificates(pem: companyCABundle)
options.tls.clientIdentity = try ClientIdentity(certificatePEM: clientPEM, privateKeyPEM: keyPEM)
options.tls.minimumVersion = .v1_3
let intranet = try Connection(url: "https://internal.example", options: options) { builder in
    builder.adapter = AsyncHTTPClientAdapter()
}

// snippet.pinning
let policy = PinningPolicy([
    // example.com and its subdomains: the current key, and the next one as a backup.
    .pin(
        "example.com",
        [try .publicKeySHA256("sha256/47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=")],
        backup: [try .publicKeySHA256("sha256/YLh1dUR9y6Kja30RrAn7JKnbQG/uEtLMkBgFF2Fuihg=")]
    ),
    // A hole in that rule.
    .disable("status.example.com"),
])
let pinned = try Connection(url: "https://api.example.com") { builder in
    builder.use(CertificatePinning.Handler(policy))
    builder.adapter = AsyncHTTPClientAdapter()
}

// snippet.redaction
let logged = try Connection(url: "https://api.example.com") { builder in
    builder.use(
        HTTPLogger.Handler(
            logger: Logger(label: "api"),
            request: .bodies,
            redaction: Redaction(queryKeys: Redaction.credentialNames + ["signature"])
        )
    )
    builder.use(Authorization.Handler(.bearer("s3cret")))  // below the logger: never logged in clear
    builder.adapter = URLSessionAdapter()
}

// snippet.redirects
let careful = try Connection(url: "https://api.example.com") { builder in
    builder.use(
        FollowRedirects.Handler(
            limit: 3,
            allowsInsecureRedirects: false,  // the default: https never falls back to http
            onRedirect: { print("\($0.status): \($0.from) -> \($0.to)") }
        )
    )
    builder.use(Authorization.Handler(.bearer("s3cret")))  // below: re-added per hop, dropped off-origin
    builder.adapter = URLSessionAdapter()
}
// snippet.end
