#if URLSession && canImport(Security) && canImport(CryptoKit)
import CryptoKit
import Foundation
import Security

extension URLSessionAdapter.Delegate {
    /// Applies the request's trust roots, verification and pins to a server-trust challenge.
    func evaluateServerTrust(
        _ challenge: URLAuthenticationChallenge,
        task: URLSessionTask,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        guard let trust = challenge.protectionSpace.serverTrust, let bridge = bridge(task) else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        do {
            try ServerTrust.evaluate(
                trust,
                host: challenge.protectionSpace.host,
                tls: bridge.tls,
                pinning: bridge.pinning
            )
            completionHandler(.useCredential, URLCredential(trust: trust))
        } catch {
            bridge.fail(error)
            completionHandler(.cancelAuthenticationChallenge, nil)
        }
    }
}

/// Server-trust evaluation with Security.framework.
enum ServerTrust {
    static func evaluate(_ trust: SecTrust, host: String, tls: TLSOptions, pinning: PinningPolicy?) throws(FaradayError)
    {
        // No roots and not the system's: nothing is trusted (as on AsyncHTTPClientAdapter), never
        // the system's roots by default.
        if !tls.trustRoots.isEmpty || !tls.trustsSystemRoots {
            let anchors = tls.trustRoots.compactMap { SecCertificateCreateWithData(nil, Data($0.der) as CFData) }
            SecTrustSetAnchorCertificates(trust, anchors as CFArray)
            SecTrustSetAnchorCertificatesOnly(trust, !tls.trustsSystemRoots)
        }
        if tls.verification == .skipHostnameCheck {
            SecTrustSetPolicies(trust, SecPolicyCreateBasicX509())
        }
        if tls.verification != .insecureNoVerification {
            var error: CFError?
            guard SecTrustEvaluateWithError(trust, &error) else {
                throw FaradayError(
                    .tlsFailure,
                    "The certificate of \(host) is not trusted: \(error.map { "\($0)" } ?? "unknown reason")."
                )
            }
        }
        guard let pinning, pinning.pinsConnections(to: host) else { return }
        let chain = (SecTrustCopyCertificateChain(trust) as? [SecCertificate]) ?? []
        let presented = chain.compactMap { certificate -> PresentedCertificate? in
            guard let parsed = try? TLSCertificate(der: Array(SecCertificateCopyData(certificate) as Data)) else {
                return nil
            }
            return PresentedCertificate(
                parsed,
                sha256: Array(SHA256.hash(data: parsed.der)),
                sha1: Array(Insecure.SHA1.hash(data: parsed.der)),
                publicKeySHA256: Array(SHA256.hash(data: parsed.subjectPublicKeyInfo))
            )
        }
        try pinning.verify(host: host, chain: presented)
    }
}
#endif
