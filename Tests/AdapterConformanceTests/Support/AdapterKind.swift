import Faraday
import FaradayAsyncHTTPClient
import FaradayNIO
import FaradayTestSupport
import Foundation
import NIOSSL
import Testing

/// The adapters that the conformance suite runs against; every test takes one as its argument.
enum AdapterKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case asyncHTTPClient
    case urlSession
    case nio

    var testDescription: String { rawValue }

    /// An adapter on SwiftNIO (AsyncHTTPClient's or NIOAdapter): bytes handed over as they
    /// arrive, HTTP versions as NIO reads them, and backpressure on every platform.
    var isOnNIO: Bool { self != .urlSession }

    /// The adapters on SwiftNIO, for the behaviours they share and URLSession lacks (pins, TLS
    /// options, proxies).
    static let onNIO: [AdapterKind] = [.asyncHTTPClient, .nio]

    func makeAdapter(trusting certificates: TestCertificates? = nil) throws -> any Adapter {
        switch self {
        case .asyncHTTPClient:
            var configuration = AsyncHTTPClientAdapter.Configuration()
            if let certificates {
                var tls = TLSConfiguration.makeClientConfiguration()
                tls.trustRoots = .certificates([try certificates.caCertificate()])
                configuration.tlsConfiguration = tls
            }
            return AsyncHTTPClientAdapter(configuration: configuration)
        case .urlSession:
            return URLSessionAdapter()
        case .nio:
            guard #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) else {
                throw FaradayError(.unsupportedOption, "NIOAdapter needs task executors (macOS 15, iOS 18).")
            }
            var configuration = NIOAdapter.Configuration()
            if let certificates {
                var tls = TLSConfiguration.makeClientConfiguration()
                tls.trustRoots = .certificates([try certificates.caCertificate()])
                configuration.tlsConfiguration = tls
            }
            return NIOAdapter(configuration: configuration)
        }
    }
}

/// Runs `body` with a fresh server and a connection to it through the adapter, then shuts both down.
func withConnection(
    _ kind: AdapterKind,
    tls: TestCertificates? = nil,
    trust: TestCertificates? = nil,
    options: RequestOptions = RequestOptions(),
    handlers: [any Handler] = [],
    host: String = "127.0.0.1",
    _ body: (Connection, TestServer) async throws -> Void
) async throws {
    let server = try await TestServer.start(tls: tls, host: host)
    let adapter = try kind.makeAdapter(trusting: trust)
    let connection = try Connection(url: server.baseURL.absoluteString, options: options) { builder in
        for handler in handlers { builder.use(handler) }
        builder.adapter = adapter
    }
    do {
        try await body(connection, server)
    } catch {
        try await shutDown(adapter, server)
        throw error
    }
    try await shutDown(adapter, server)
}

private func shutDown(_ adapter: any Adapter, _ server: TestServer) async throws {
    try await shutDown(adapter)
    try await server.shutdown()
}

/// Shuts an adapter that holds connections down.
func shutDown(_ adapter: any Adapter) async throws {
    try await (adapter as? AsyncHTTPClientAdapter)?.shutdown()
    if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
        try await (adapter as? NIOAdapter)?.shutdown()
    }
}

extension Response {
    var echo: Echo {
        get async throws { try await decode(Echo.self) }
    }
}

/// `true` when `error` is a `FaradayError` with one of `codes`.
func isFaradayError(_ error: any Error, _ codes: FaradayError.Code...) -> Bool {
    guard let error = error as? FaradayError else { return false }
    return codes.contains(error.code)
}

/// Polls `condition` until it holds, failing the test (not hanging it) after `limit`: a bound on
/// waiting for something that must happen, not a measure of how fast it does.
func waitUntil(
    _ condition: @Sendable () -> Bool,
    limit: Duration = .seconds(30),
    sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let end = ContinuousClock.now + limit
    while !condition() {
        guard ContinuousClock.now < end else {
            Issue.record("the condition did not hold within \(limit)", sourceLocation: sourceLocation)
            return
        }
        try await Task.sleep(for: .milliseconds(5))
    }
}

/// The resident memory of this process, in bytes (Linux; 0 elsewhere).
func residentMemory() -> Int { ProcessMemory.resident }

/// A thread-safe log of events.
final class Recorder: Sendable {
    private let events = Locked<[String]>([])
    func record(_ event: String) { events.withLock { $0.append(event) } }
    var log: [String] { events.withLock { $0 } }
}

/// Every conformance suite is nested here and runs one test at a time: the gigabyte streams and
/// the 500-request bursts would otherwise starve each other on a small machine.
@Suite(.serialized) struct AdapterConformance {}

/// Whether URLSession can suspend a running task (Apple platforms) or not (FoundationNetworking).
#if canImport(Darwin)
let platformCanPauseURLSession = true
#else
let platformCanPauseURLSession = false
#endif
