import Crypto
import Faraday
import FaradayAsyncHTTPClient
import FaradayTestSupport
import Foundation
import InMemoryLogging
import Logging
import NIOSSL
import Testing

extension AdapterConformance {
    /// TLS options and certificate pinning against the in-process HTTPS servers, with certificates
    /// generated for each test.
    @Suite(.timeLimit(.minutes(2))) struct PinningTests {
        /// Runs `body` against an HTTPS server with `certificates`, through an adapter configured only
        /// by request options (`tls` trusting the server's CA unless given) and `pinning`.
        private func withPinnedConnection(
            _ kind: AdapterKind = .asyncHTTPClient,
            server certificates: TestCertificates,
            tls: TLSOptions? = nil,
            pinning: PinningPolicy? = nil,
            clientAuthentication: Bool = false,
            maximumTLSVersion: NIOSSL.TLSVersion? = nil,
            _ body: (Connection, TestServer) async throws -> Void
        ) async throws {
            let server = try await TestServer.start(
                tls: certificates,
                clientAuthentication: clientAuthentication,
                maximumTLSVersion: maximumTLSVersion
            )
            let adapter = try kind.makeAdapter()
            var options = RequestOptions()
            options.tls = try tls ?? TLSOptions(trustRoots: [TLSCertificate(pem: certificates.caPEM)])
            let connection = try Connection(url: server.baseURL.absoluteString, options: options) { builder in
                if let pinning { builder.use(CertificatePinning.Handler(pinning)) }
                builder.adapter = adapter
            }
            defer {
                Task {
                    try await shutDown(adapter)
                    try await server.shutdown()
                }
            }
            try await body(connection, server)
        }

        private func leaf(_ certificates: TestCertificates) throws -> TLSCertificate {
            try TLSCertificate(der: certificates.serverCertificateDER)
        }

        private func hex(_ bytes: some Sequence<UInt8>, separator: String = ":") -> String {
            bytes.map { String(format: "%02X", $0) }.joined(separator: separator)
        }

        // MARK: Pins that match

        @Test(arguments: AdapterKind.onNIO)
        func everyKindOfPinMatchesASelfSignedLeaf(_ kind: AdapterKind) async throws {
            let certificates = try TestCertificates.selfSigned()
            let leaf = try leaf(certificates)
            let pins: [CertificatePin] = [
                try .certificateSHA256(hex(SHA256.hash(data: leaf.der))),
                try .certificateSHA256(hex(SHA256.hash(data: leaf.der), separator: "").lowercased()),
                try .certificateSHA1(hex(Insecure.SHA1.hash(data: leaf.der), separator: " ")),
                try .publicKeySHA256(
                    "sha256/" + Data(SHA256.hash(data: leaf.subjectPublicKeyInfo)).base64EncodedString()
                ),
                .certificate(try TLSCertificate(pem: certificates.serverCertificatePEM)),
                .certificate(try TLSCertificate(der: certificates.serverCertificateDER)),
            ]
            for pin in pins {
                try await withPinnedConnection(
                    kind,
                    server: certificates,
                    pinning: PinningPolicy([.pin("localhost", [pin], scope: .leaf)])
                ) { connection, server in
                    let answer = try await connection.get("echo").value
                    #expect(answer.response?.status == .ok, "\(pin)")
                    #expect(server.requestsReceived == 1)
                }
            }
        }

        @Test(arguments: AdapterKind.onNIO)
        func aCAIssuedLeafPinnedByItsKeyWorks(_ kind: AdapterKind) async throws {
            let certificates = try TestCertificates.generate()
            let spki = Data(SHA256.hash(data: try leaf(certificates).subjectPublicKeyInfo)).base64EncodedString()
            let policy = PinningPolicy([.pin("localhost", [try .publicKeySHA256(spki)], scope: .leaf)])
            try await withPinnedConnection(kind, server: certificates, pinning: policy) { connection, server in
                // Calls in a row, on new or pooled connections alike.
                for _ in 0..<3 { _ = try await connection.get("echo").value }
                #expect(server.requestsReceived == 3)
            }
        }

        @Test(arguments: AdapterKind.onNIO)
        func aChainPinMatchesTheIssuingCA(_ kind: AdapterKind) async throws {
            let certificates = try TestCertificates.generate()
            let ca = try TLSCertificate(pem: certificates.caPEM)
            let caPin = try CertificatePin.publicKeySHA256(
                Data(SHA256.hash(data: ca.subjectPublicKeyInfo)).base64EncodedString()
            )
            try await withPinnedConnection(
                kind,
                server: certificates,
                pinning: PinningPolicy([.pin("localhost", [caPin])])
            ) {
                connection,
                _ in
                let answer = try await connection.get("echo").value
                #expect(answer.response?.status == .ok)
            }
            // The same pin in leaf scope does not match: the leaf's own key is not pinned.
            try await withPinnedConnection(
                kind,
                server: certificates,
                pinning: PinningPolicy([.pin("localhost", [caPin], scope: .leaf)])
            ) { connection, server in
                await #expect { try await connection.get("echo").value } throws: { error in
                    isFaradayError(error, .tlsFailure)
                }
                #expect(server.requestsReceived == 0)
            }
        }

        @Test(arguments: AdapterKind.onNIO)
        func aBackupPinIsEnoughAndAnotherHostsPinsDoNotApply(_ kind: AdapterKind) async throws {
            let certificates = try TestCertificates.generate()
            let unrelated = try TestCertificates.generate()
            let right = CertificatePin.certificate(try leaf(certificates))
            let wrong = CertificatePin.certificate(try leaf(unrelated))
            let policy = PinningPolicy([.pin("localhost", [wrong], backup: [right]), .pin("example.com", [wrong])])
            try await withPinnedConnection(kind, server: certificates, pinning: policy) { connection, _ in
                _ = try await connection.get("echo").value
            }
            // 127.0.0.1 is not pinned by a rule for localhost.
            try await withPinnedConnection(
                kind,
                server: certificates,
                pinning: PinningPolicy([.pin("localhost", [wrong])])
            ) {
                connection,
                server in
                let answer = try await connection.get("https://127.0.0.1:\(server.port)/echo").value
                #expect(answer.response?.status == .ok)
            }
        }

        // MARK: Pins that fail closed

        @Test(arguments: AdapterKind.onNIO)
        func aWrongPinFailsBeforeTheServerSeesARequest(_ kind: AdapterKind) async throws {
            let certificates = try TestCertificates.generate()
            let unrelated = try TestCertificates.generate()
            let policy = PinningPolicy([.pin("localhost", [.certificate(try leaf(unrelated))])])
            try await withPinnedConnection(kind, server: certificates, pinning: policy) { connection, server in
                for _ in 0..<2 {
                    let error = await #expect(throws: FaradayError.self) {
                        try await connection.post("echo", body: .text("secret")).value
                    }
                    #expect(error?.code == .tlsFailure)
                    #expect(error?.message.contains("localhost") == true)
                    let mismatch = error?.underlying as? CertificatePinningMismatch
                    #expect(mismatch?.host == "localhost")
                    #expect(
                        mismatch?.presented.first?.sha256 == Array(SHA256.hash(data: certificates.serverCertificateDER))
                    )
                }
                #expect(server.requestsReceived == 0)
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func aPinnedHostIsNeverReachedOverPlainHTTP(_ kind: AdapterKind) async throws {
            // As a redirect would bring it: past the middleware, straight to the adapter.
            let server = try await TestServer.start()
            let adapter = try kind.makeAdapter()
            let pin = CertificatePin.certificate(
                try TLSCertificate(der: try TestCertificates.generate().serverCertificateDER)
            )
            let connection = try Connection(url: server.baseURL.absoluteString) { $0.adapter = adapter }
            var request = try connection.makeRequest(method: .get, "http://localhost:\(server.port)/echo")
            request.options.pinning = PinningPolicy([.pin("localhost", [pin])])
            let error = await #expect(throws: FaradayError.self) { try await connection.run(request).value }
            #expect(error?.code == .tlsFailure)
            #expect(server.requestsReceived == 0)
            try await shutDown(adapter)
            try await server.shutdown()
        }

        @Test func aWrongPinFailsAnHTTP2Connection() async throws {
            let server = try await HTTP2TestServer.start()
            let adapter = AsyncHTTPClientAdapter()
            var options = RequestOptions()
            options.tls.trustRoots = [try TLSCertificate(pem: server.certificates.caPEM)]
            let right = CertificatePin.certificate(try TLSCertificate(der: server.certificates.serverCertificateDER))
            let wrong = CertificatePin.certificate(
                try TLSCertificate(der: try TestCertificates.generate().serverCertificateDER)
            )
            for (pin, succeeds) in [(right, true), (wrong, false)] {
                let connection = try Connection(url: server.baseURL.absoluteString, options: options) { builder in
                    builder.use(CertificatePinning.Handler(PinningPolicy([.pin("localhost", [pin])])))
                    builder.adapter = adapter
                }
                do {
                    let env = try await connection.get("echo").value
                    #expect(succeeds)
                    #expect(env.responseHeaders[HTTPField.Name("x-http-version")!] == "2")
                } catch {
                    #expect(!succeeds)
                    #expect(isFaradayError(error, .tlsFailure))
                }
            }
            try await adapter.shutdown()
            try await server.shutdown()
        }

        @Test(arguments: AdapterKind.onNIO)
        func debugModeLogsTheFingerprintsAndLetsTheRequestThrough(_ kind: AdapterKind) async throws {
            let certificates = try TestCertificates.generate()
            let logs = InMemoryLogHandler()
            let policy = PinningPolicy([.debug("localhost")], logger: Logger(label: "pins") { _ in logs })
            try await withPinnedConnection(kind, server: certificates, pinning: policy) { connection, _ in
                let answer = try await connection.get("echo").value
                #expect(answer.response?.status == .ok)
            }
            let spki = Data(SHA256.hash(data: try leaf(certificates).subjectPublicKeyInfo)).base64EncodedString()
            #expect(logs.entries.contains { "\($0.metadata)".contains("sha256/" + spki) })
        }

        @Test func urlSessionOnLinuxRefusesPinnedRequestsAndTLSOptions() async throws {
            guard !platformCanPauseURLSession else { return }  // Apple platforms enforce pins instead.
            let certificates = try TestCertificates.generate()
            let policy = PinningPolicy([.pin("localhost", [.certificate(try leaf(certificates))])])
            try await withPinnedConnection(.urlSession, server: certificates, tls: TLSOptions(), pinning: policy) {
                connection,
                server in
                let error = await #expect(throws: FaradayError.self) { try await connection.get("echo").value }
                #expect(error?.code == .unsupportedOption)
                #expect(error?.message.contains("pins of localhost") == true)
                #expect(server.requestsReceived == 0)
            }
            try await withPinnedConnection(.urlSession, server: certificates) { connection, server in
                let error = await #expect(throws: FaradayError.self) { try await connection.get("echo").value }
                #expect(error?.code == .unsupportedOption)
                #expect(server.requestsReceived == 0)
            }
        }

        // MARK: TLS options

        @Test(arguments: AdapterKind.onNIO)
        func mutualTLSNeedsTheRightClientCertificate(_ kind: AdapterKind) async throws {
            let certificates = try TestCertificates.generate()
            let unrelated = try TestCertificates.generate()
            let roots = [try TLSCertificate(pem: certificates.caPEM)]
            let right = try ClientIdentity(
                certificatePEM: certificates.clientCertificatePEM,
                privateKeyPEM: certificates.clientKeyPEM
            )
            let foreign = try ClientIdentity(
                certificatePEM: unrelated.clientCertificatePEM,
                privateKeyPEM: unrelated.clientKeyPEM
            )
            try await withPinnedConnection(
                kind,
                server: certificates,
                tls: TLSOptions(trustRoots: roots, clientIdentity: right),
                clientAuthentication: true
            ) { connection, _ in
                let answer = try await connection.get("echo").value
                #expect(answer.response?.status == .ok)
            }
            for identity in [nil, foreign] {
                try await withPinnedConnection(
                    kind,
                    server: certificates,
                    tls: TLSOptions(trustRoots: roots, clientIdentity: identity),
                    clientAuthentication: true
                ) { connection, server in
                    await #expect { try await connection.get("echo").value } throws: { error in
                        isFaradayError(error, .tlsFailure, .connectionFailed)
                    }
                    #expect(server.requestsReceived == 0)
                }
            }
        }

        @Test(arguments: AdapterKind.onNIO)
        func theMinimumVersionIsHonoured(_ kind: AdapterKind) async throws {
            let certificates = try TestCertificates.generate()
            let roots = [try TLSCertificate(pem: certificates.caPEM)]
            try await withPinnedConnection(
                kind,
                server: certificates,
                tls: TLSOptions(trustRoots: roots, minimumVersion: .v1_2),
                maximumTLSVersion: .tlsv12
            ) { connection, _ in
                _ = try await connection.get("echo").value
            }
            try await withPinnedConnection(
                kind,
                server: certificates,
                tls: TLSOptions(trustRoots: roots, minimumVersion: .v1_3),
                maximumTLSVersion: .tlsv12
            ) { connection, server in
                await #expect { try await connection.get("echo").value } throws: { error in
                    isFaradayError(error, .tlsFailure)
                }
                #expect(server.requestsReceived == 0)
            }
        }

        /// TLS 1.2 at the least by default (TLSOptions' promise): a server that speaks no more than
        /// TLS 1.1 is refused, whether the CA is trusted through the request's options or through
        /// the adapter's own NIOSSL configuration (whose NIOSSL default was TLS 1.0), and an explicit
        /// `.v1_2` means the same. (URLSessionAdapter on Linux takes no TLS options, so no test CA:
        /// its minimum is libcurl's and OpenSSL's, TLS 1.2 on Debian; see the Adapters article.)
        @Test(arguments: AdapterKind.onNIO, [TLSProtocolVersion?.none, .v1_2])
        func aServerLimitedToTLS11IsRefusedByDefault(_ kind: AdapterKind, _ minimum: TLSProtocolVersion?) async throws {
            let certificates = try TestCertificates.generate()
            var tls = TLSOptions(trustRoots: [try TLSCertificate(pem: certificates.caPEM)])
            if let minimum { tls.minimumVersion = minimum }
            try await withPinnedConnection(kind, server: certificates, tls: tls, maximumTLSVersion: .tlsv11) {
                connection,
                server in
                await #expect { try await connection.get("echo").value } throws: { error in
                    isFaradayError(error, .tlsFailure, .connectionFailed)
                }
                #expect(server.requestsReceived == 0)
            }
            let server = try await TestServer.start(tls: certificates, maximumTLSVersion: .tlsv11)
            let adapter = try kind.makeAdapter(trusting: certificates)
            var options = RequestOptions()
            if let minimum { options.tls.minimumVersion = minimum }
            let connection = try Connection(url: server.baseURL.absoluteString, options: options) {
                $0.adapter = adapter
            }
            await #expect { try await connection.get("echo").value } throws: { error in
                isFaradayError(error, .tlsFailure, .connectionFailed)
            }
            #expect(server.requestsReceived == 0)
            // The same adapter and server at TLS 1.2 talk.
            let modern = try await TestServer.start(tls: certificates, maximumTLSVersion: .tlsv12)
            let answer = try await connection.get(modern.baseURL.appendingPathComponent("echo").absoluteString).value
            #expect(answer.response?.status == .ok)
            try await shutDown(adapter)
            try await server.shutdown()
            try await modern.shutdown()
        }

        @Test(arguments: AdapterKind.onNIO)
        func trustIsOnlyEverDisabledByName(_ kind: AdapterKind) async throws {
            let certificates = try TestCertificates.generate()
            // Neither the system roots nor an unrelated CA trust the server.
            let unrelatedRoot = try TLSCertificate(pem: try TestCertificates.generate().caPEM)
            for tls in [TLSOptions(), TLSOptions(trustRoots: [unrelatedRoot], trustsSystemRoots: false)] {
                try await withPinnedConnection(kind, server: certificates, tls: tls) { connection, server in
                    await #expect { try await connection.get("echo").value } throws: { error in
                        isFaradayError(error, .tlsFailure)
                    }
                    #expect(server.requestsReceived == 0)
                }
            }
            try await withPinnedConnection(
                kind,
                server: certificates,
                tls: TLSOptions(verification: .insecureNoVerification)
            ) { connection, _ in
                _ = try await connection.get("echo").value
            }
            // Pins still apply when verification is off.
            let wrong = CertificatePin.certificate(
                try TLSCertificate(der: try TestCertificates.generate().serverCertificateDER)
            )
            try await withPinnedConnection(
                kind,
                server: certificates,
                tls: TLSOptions(verification: .insecureNoVerification),
                pinning: PinningPolicy([.pin("localhost", [wrong])])
            ) { connection, server in
                await #expect { try await connection.get("echo").value } throws: { error in
                    isFaradayError(error, .tlsFailure)
                }
                #expect(server.requestsReceived == 0)
            }
        }
    }
}
