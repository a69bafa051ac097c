import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Which certificates must match which hosts' pins.
///
/// ```swift
/// let policy = PinningPolicy([
///     .pin("example.com", [try .publicKeySHA256("sha256/…")], backup: [try .publicKeySHA256("sha256/…")]),
///     .disable("status.example.com"),
/// ])
/// builder.use(CertificatePinning.Handler(policy))
/// ```
///
/// A host is matched by the most specific rule: a rule for its exact name first, then the rule
/// for its closest parent domain that includes subdomains (a rule for `example.com` covers
/// `api.example.com` unless made exact). Host names compare case-insensitively, without a
/// trailing dot. A host no rule matches is not pinned.
public struct PinningPolicy: Sendable {
    /// The rules, one per host.
    public var rules: [PinningRule]
    /// Where ``PinningRule/Mode/debug`` rules report the certificates they see.
    public var logger: Logger

    /// Creates a policy.
    public init(_ rules: [PinningRule], logger: Logger = Logger(label: "Faraday.CertificatePinning")) {
        self.rules = rules
        self.logger = logger
    }

    /// The rule that applies to `host`, if any.
    public func rule(for host: String) -> PinningRule? {
        let host = PinningRule.normalize(host)
        if let exact = rules.first(where: { $0.host == host }) { return exact }
        return
            rules
            .filter { $0.includesSubdomains && host.hasSuffix("." + $0.host) }
            .max { $0.host.count < $1.host.count }
    }

    /// The rule a connection to `host` is checked against: the one that applies, unless disabled.
    public func activeRule(for host: String) -> PinningRule? {
        rule(for: host).flatMap { $0.mode == .disabled ? nil : $0 }
    }

    /// Whether a connection to `host` must be checked: a rule applies and is not disabled.
    public func pinsConnections(to host: String) -> Bool { activeRule(for: host) != nil }

    /// Throws ``FaradayError/Code/tlsFailure`` for a request to a pinned host over plain HTTP,
    /// which has no certificates to check: adapters call it so that a request reaching them by a
    /// redirect is refused too.
    public func refusePlainHTTP(_ request: Request) throws(FaradayError) {
        guard let host = request.url.host, pinsConnections(to: host), request.url.scheme?.lowercased() != "https" else {
            return
        }
        throw FaradayError(
            .tlsFailure,
            "\(host) is pinned, and a plain HTTP request cannot be pinned.",
            method: request.method,
            url: request.url
        )
    }

    /// Checks the certificates `host` presented, leaf first. Throws
    /// ``FaradayError/Code/tlsFailure`` (with a ``CertificatePinningMismatch`` as its underlying
    /// error) when an enforced rule's pins match none of them; a debug rule logs them instead.
    public func verify(host: String, chain: [PresentedCertificate]) throws(FaradayError) {
        guard let rule = activeRule(for: host) else { return }
        let candidates = rule.scope == .leaf ? Array(chain.prefix(1)) : chain
        let matched = candidates.contains { certificate in rule.allPins.contains { $0.matches(certificate) } }
        let mismatch = CertificatePinningMismatch(host: host, presented: chain, scope: rule.scope)
        switch (matched, rule.mode) {
        case (true, .debug):
            logger.notice("Certificate pins matched", metadata: mismatch.metadata)
        case (false, .debug):
            logger.warning(
                "Certificate pins did not match; debug mode lets the request through",
                metadata: mismatch.metadata
            )
        case (false, _):
            throw FaradayError(.tlsFailure, mismatch.description, underlying: mismatch)
        default:
            break
        }
    }
}

/// The pins of one host, or of a domain and its subdomains.
public struct PinningRule: Sendable, Hashable {
    /// What a rule does with a connection.
    public enum Mode: Sendable, Hashable {
        /// A connection whose certificates match no pin fails.
        case enforce
        /// The certificates seen are logged, matching or not, and the connection goes ahead: for
        /// finding the fingerprints to pin.
        case debug
        /// The host is not pinned (a hole in a broader rule).
        case disabled
    }

    /// Which certificates may match.
    public enum Scope: Sendable, Hashable {
        /// Only the server's own certificate.
        case leaf
        /// Any certificate of the chain the server's certificate was verified with: pin an
        /// intermediate or root to survive renewals of the leaf.
        case chain
    }

    /// The host name, lower-cased, without a trailing dot.
    public let host: String
    /// Whether the rule covers subdomains of ``host``.
    public var includesSubdomains: Bool
    /// The pins; any one matching is enough.
    public var pins: [CertificatePin]
    /// Pins for keys not deployed yet (HPKP's backup pins): they match like ``pins`` and let a
    /// server move to a new key without breaking clients in the field.
    public var backupPins: [CertificatePin]
    /// Which certificates may match.
    public var scope: Scope
    /// What the rule does.
    public var mode: Mode

    /// Creates a rule.
    public init(
        host: String,
        includesSubdomains: Bool = true,
        pins: [CertificatePin],
        backupPins: [CertificatePin] = [],
        scope: Scope = .chain,
        mode: Mode = .enforce
    ) {
        self.host = Self.normalize(host)
        self.includesSubdomains = includesSubdomains
        self.pins = pins
        self.backupPins = backupPins
        self.scope = scope
        self.mode = mode
    }

    /// Pins `host` (and, unless `includingSubdomains` is `false`, its subdomains).
    public static func pin(
        _ host: String,
        includingSubdomains: Bool = true,
        _ pins: [CertificatePin],
        backup: [CertificatePin] = [],
        scope: Scope = .chain
    ) -> PinningRule {
        PinningRule(host: host, includesSubdomains: includingSubdomains, pins: pins, backupPins: backup, scope: scope)
    }

    /// Logs the certificates of `host` without enforcing anything (see ``Mode/debug``).
    public static func debug(
        _ host: String,
        includingSubdomains: Bool = true,
        _ pins: [CertificatePin] = [],
        scope: Scope = .chain
    ) -> PinningRule {
        PinningRule(host: host, includesSubdomains: includingSubdomains, pins: pins, scope: scope, mode: .debug)
    }

    /// Leaves `host` unpinned although a broader rule covers it.
    public static func disable(_ host: String, includingSubdomains: Bool = false) -> PinningRule {
        PinningRule(host: host, includesSubdomains: includingSubdomains, pins: [], mode: .disabled)
    }

    /// The pins and the backup pins.
    public var allPins: [CertificatePin] { pins + backupPins }

    static func normalize(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host
    }
}

/// Why a connection failed its pins: the host and every certificate it presented.
public struct CertificatePinningMismatch: Error, Sendable, CustomStringConvertible {
    /// The host connected to.
    public let host: String
    /// The certificates presented, leaf first, as far as the adapter could see them.
    public let presented: [PresentedCertificate]
    /// Which of them the rule allowed to match.
    public let scope: PinningRule.Scope

    public var description: String {
        let seen = presented.enumerated().map { index, certificate in
            (index == 0 ? "leaf " : "chain[\(index)] ") + certificate.description
        }
        let which = scope == .leaf ? "the leaf certificate" : "any certificate of the chain"
        return
            "Certificate pinning failed for \(host): no pin matched \(which). Presented: \(seen.joined(separator: "; "))."
    }

    var metadata: Logger.Metadata {
        [
            "host": "\(host)",
            "certificates": .array(presented.map { .string($0.description) }),
        ]
    }
}
