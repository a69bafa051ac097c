#if NIO
import Crypto
import Faraday
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import NIOSSL
import SwiftASN1
import X509

/// The NIOSSL settings of Faraday's adapters on SwiftNIO, and the pin check of their connections.
package enum TLSSettings {
    /// The TLS configuration for a request: the adapter's, with the request's ``TLSOptions``
    /// applied. `nil` (the client's own) when neither sets anything.
    package static func configuration(
        _ options: TLSOptions,
        base: TLSConfiguration?
    ) throws(FaradayError) -> TLSConfiguration? {
        guard !options.isDefault else { return base }
        var tls = base ?? .makeClientConfiguration()
        do {
            let roots = try options.trustRoots.map { try NIOSSLCertificate(bytes: $0.der, format: .der) }
            if !options.trustsSystemRoots {
                tls.trustRoots = .certificates(roots)
            } else if !roots.isEmpty {
                tls.additionalTrustRoots.append(.certificates(roots))
            }
            if let identity = options.clientIdentity {
                tls.certificateChain = try identity.certificateChain.map {
                    .certificate(try NIOSSLCertificate(bytes: $0.der, format: .der))
                }
                tls.privateKey =
                    switch identity.privateKey {
                    case .pem(let text): .privateKey(try NIOSSLPrivateKey(bytes: Array(text.utf8), format: .pem))
                    case .der(let bytes): .privateKey(try NIOSSLPrivateKey(bytes: bytes, format: .der))
                    }
            }
        } catch {
            throw FaradayError(
                .invalidRequest,
                "The TLS options hold a certificate or key that cannot be read: \(error).",
                underlying: error
            )
        }
        tls = raisingMinimumVersion(tls, to: options.minimumVersion)
        tls.certificateVerification =
            switch options.verification {
            case .full: .fullVerification
            case .skipHostnameCheck: .noHostnameVerification
            case .insecureNoVerification: .none
            }
        return tls
    }
}

extension TLSSettings {
    /// `tls` accepting no protocol version below `minimum` (a higher minimum it has is kept).
    package static func raisingMinimumVersion(
        _ tls: TLSConfiguration,
        to minimum: TLSProtocolVersion
    ) -> TLSConfiguration {
        func rank(_ version: TLSVersion) -> Int {
            switch version {
            case .tlsv1: 10
            case .tlsv11: 11
            case .tlsv12: 12
            case .tlsv13: 13
            }
        }
        let wanted: TLSVersion =
            switch minimum {
            case .v1_2: .tlsv12
            case .v1_3: .tlsv13
            }
        var tls = tls
        if rank(tls.minimumTLSVersion) < rank(wanted) { tls.minimumTLSVersion = wanted }
        return tls
    }
}

/// What a pinned connection is checked against: connections checked against one value may be
/// shared (one HTTP client per value on AsyncHTTPClient, one pool on NIOAdapter), and the check
/// runs after the TLS handshake, before the connection takes its first request.
package struct PinnedHost: Hashable, Sendable {
    package let host: String
    package let rule: PinningRule
    /// Roots the request's TLS options add, to find the leaf's issuers by.
    package let trustRoots: [TLSCertificate]
    package let trustsSystemRoots: Bool

    /// The host a request pins and the check of its connections; `nil` when the request's policy
    /// pins nothing for its host. Throws for a pinned request to plain `http://`.
    package static func forRequest(
        _ request: Request
    ) throws(FaradayError) -> (PinnedHost, ConnectionPinVerifier)? {
        let options = request.options
        try options.pinning?.refusePlainHTTP(request)
        guard let policy = options.pinning, let host = request.url.host, let rule = policy.activeRule(for: host) else {
            return nil
        }
        let pinned = PinnedHost(
            host: host,
            rule: rule,
            trustRoots: options.tls.trustRoots,
            trustsSystemRoots: options.tls.trustsSystemRoots
        )
        return (pinned, ConnectionPinVerifier(pinned: pinned, policy: policy))
    }
}

/// Checks a freshly handshaken connection's certificates against a pinning policy.
///
/// NIOSSL shows a connection only its leaf certificate. For
/// ``PinningRule/Scope/chain`` rules the chain above the leaf is rebuilt from certificates the
/// client knows (the system roots, the request's trust roots and the policy's pinned
/// certificates), each link's signature checked; a pin of an intermediate the server sends but
/// the client does not know cannot match, and the connection fails closed.
package struct ConnectionPinVerifier: Sendable {
    package let pinned: PinnedHost
    package let policy: PinningPolicy

    /// The check, as AsyncHTTPClient's connection debug initializers take it: it closes a
    /// connection that fails it, so that no request can ever use it.
    package func initializer() -> @Sendable (any Channel) -> EventLoopFuture<Void> {
        { channel in
            channel.nioSSL_peerCertificate().flatMap { leaf in
                channel.eventLoop.makeFutureWithTask { try await verify(leaf) }
            }.flatMapError { error in
                channel.close(promise: nil)
                return channel.eventLoop.makeFailedFuture(error)
            }
        }
    }

    /// Checks the handshaken leaf certificate (and, for chain rules, its issuers) against the pins.
    package func verify(_ leaf: NIOSSLCertificate?) async throws {
        guard let leaf else {
            throw FaradayError(.tlsFailure, "\(pinned.host) presented no certificate to check the pins against.")
        }
        let leafCertificate = try TLSCertificate(x509: try leaf.toDERBytes())
        var chain = [Self.present(leafCertificate)]
        // Rebuilding the chain costs a verification: only when the leaf alone does not settle it.
        let leafMatches = pinned.rule.allPins.contains { $0.matches(chain[0]) }
        if pinned.rule.scope == .chain && (!leafMatches || pinned.rule.mode == .debug) {
            chain += await issuers(of: leafCertificate).map(Self.present)
        }
        try policy.verify(host: pinned.host, chain: chain)
    }

    /// The leaf's issuers up to a root, as far as the known certificates lead.
    private func issuers(of leaf: TLSCertificate) async -> [TLSCertificate] {
        do {
            let known = try (pinned.trustRoots + pinned.rule.allPins.compactMap(\.pinnedCertificate))
                .map { try Certificate(derEncoded: $0.der) }
            let roots =
                pinned.trustsSystemRoots
                ? CertificateStore.systemTrustRoots.appending(contentsOf: known) : CertificateStore(known)
            var verifier = Verifier(rootCertificates: roots) { RFC5280Policy() }
            let result = await verifier.validate(
                leaf: try Certificate(derEncoded: leaf.der),
                intermediates: CertificateStore()
            )
            guard case .validCertificate(let validated) = result else { return [] }
            return try validated.dropFirst().map { certificate throws(FaradayError) in try TLSCertificate(certificate) }
        } catch {
            return []
        }
    }

    static func present(_ certificate: TLSCertificate) -> PresentedCertificate {
        PresentedCertificate(
            certificate,
            sha256: Array(SHA256.hash(data: certificate.der)),
            sha1: Array(Insecure.SHA1.hash(data: certificate.der)),
            publicKeySHA256: Array(SHA256.hash(data: certificate.subjectPublicKeyInfo))
        )
    }
}
#endif
