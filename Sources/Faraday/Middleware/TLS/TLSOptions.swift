#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How an adapter sets up TLS for a request: trust roots, a client certificate, the lowest
/// protocol version and how the server's certificate is verified.
///
/// ```swift
/// let connection = try Connection(url: "https://internal.example") { builder in
///     builder.options.tls.trustRoots = try TLSCertificate.certificates(pem: caBundle)
///     builder.options.tls.clientIdentity = try ClientIdentity(certificatePEM: cert, privateKeyPEM: key)
///     builder.options.tls.minimumVersion = .v1_3
/// }
/// ```
///
/// The default (system roots, full verification, TLS 1.2 or later, no client certificate) asks
/// nothing of an adapter. An adapter that cannot apply a non-default value refuses the request with
/// ``FaradayError/Code/unsupportedOption`` before sending it.
public struct TLSOptions: Sendable, Hashable {
    /// Certificates to trust as roots, in addition to the system's unless
    /// ``trustsSystemRoots`` is `false`.
    public var trustRoots: [TLSCertificate]
    /// Whether the system's trust roots are trusted too.
    public var trustsSystemRoots: Bool
    /// The certificate and key presented to a server that asks for one (mutual TLS).
    public var clientIdentity: ClientIdentity?
    /// The lowest protocol version accepted.
    public var minimumVersion: TLSProtocolVersion
    /// How the server's certificate is verified.
    public var verification: ServerCertificateVerification

    /// Creates options; the defaults are the system's roots, full verification and TLS 1.2.
    public init(
        trustRoots: [TLSCertificate] = [],
        trustsSystemRoots: Bool = true,
        clientIdentity: ClientIdentity? = nil,
        minimumVersion: TLSProtocolVersion = .v1_2,
        verification: ServerCertificateVerification = .full
    ) {
        self.trustRoots = trustRoots
        self.trustsSystemRoots = trustsSystemRoots
        self.clientIdentity = clientIdentity
        self.minimumVersion = minimumVersion
        self.verification = verification
    }

    /// Whether these are the defaults, which every adapter honours.
    public var isDefault: Bool { self == TLSOptions() }
}

/// A TLS protocol version.
public enum TLSProtocolVersion: Sendable, Hashable, Comparable {
    /// TLS 1.2.
    case v1_2
    /// TLS 1.3.
    case v1_3
}

/// How the server's certificate is checked.
public enum ServerCertificateVerification: Sendable, Hashable {
    /// The chain must lead to a trusted root and the certificate must name the host.
    case full
    /// The chain must lead to a trusted root; the host name is not checked.
    case skipHostnameCheck
    /// Nothing is checked: anyone on the path can read and change the traffic. Named so that it is
    /// never chosen by accident; for test servers only. Certificate pins still apply.
    case insecureNoVerification
}

/// A client certificate chain and its private key, for mutual TLS.
public struct ClientIdentity: Sendable, Hashable {
    /// The client's certificate first, then any intermediates.
    public var certificateChain: [TLSCertificate]
    /// The private key (PKCS #8, SEC 1 or PKCS #1), as PEM text or DER bytes.
    public var privateKey: PrivateKey

    /// A private key's encoding.
    public enum PrivateKey: Sendable, Hashable {
        /// A PEM text (`PRIVATE KEY`, `EC PRIVATE KEY` or `RSA PRIVATE KEY`).
        case pem(String)
        /// DER bytes.
        case der([UInt8])
    }

    /// Creates an identity from a certificate chain and a key.
    public init(certificateChain: [TLSCertificate], privateKey: PrivateKey) throws(FaradayError) {
        guard !certificateChain.isEmpty else {
            throw FaradayError(.invalidRequest, "A client identity needs at least one certificate.")
        }
        if case .pem(let text) = privateKey, !text.contains("PRIVATE KEY-----") {
            throw FaradayError(.invalidRequest, "The PEM text holds no PRIVATE KEY block.")
        }
        self.certificateChain = certificateChain
        self.privateKey = privateKey
    }

    /// Creates an identity from PEM texts: the certificate (and intermediates) and the key.
    public init(certificatePEM: String, privateKeyPEM: String) throws(FaradayError) {
        try self.init(
            certificateChain: TLSCertificate.certificates(pem: certificatePEM),
            privateKey: .pem(privateKeyPEM)
        )
    }
}

extension ClientIdentity.PrivateKey: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Never the key itself: options, envs and errors are printed in logs.
    public var description: String { "PrivateKey(redacted)" }
    public var debugDescription: String { description }
    /// No children: `dump` shows the ``description`` only, never the key.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension RequestOptions {
    private enum TLSKey: EnvKey { typealias Value = TLSOptions }
    private enum PinningKey: EnvKey { typealias Value = PinningPolicy }

    /// Trust roots, client certificate, minimum version and verification for HTTPS.
    public var tls: TLSOptions {
        get { self[TLSKey.self] ?? TLSOptions() }
        set { self[TLSKey.self] = newValue }
    }

    /// The certificate pins the adapter enforces (set by ``CertificatePinning``). `nil`: none.
    public var pinning: PinningPolicy? {
        get { self[PinningKey.self] }
        set { self[PinningKey.self] = newValue }
    }
}
