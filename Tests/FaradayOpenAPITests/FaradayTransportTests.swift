import Faraday
import FaradayAsyncHTTPClient
import FaradayOpenAPI
import FaradayTestSupport
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The client generated from `openapi.yaml` (in `Generated/`), sending through ``FaradayTransport``
/// to the in-process test server, on both network adapters.
@Suite(.timeLimit(.minutes(2))) struct FaradayTransportTests {
    enum AdapterKind: String, CaseIterable, Sendable {
        case asyncHTTPClient, urlSession

        /// An adapter that opens one connection per host, so that a response that kept its
        /// connection would stall every later call.
        func makeAdapter() -> any Adapter {
            switch self {
            case .asyncHTTPClient:
                var configuration = AsyncHTTPClientAdapter.Configuration()
                configuration.maximumConnectionsPerHost = 1
                return AsyncHTTPClientAdapter(configuration: configuration)
            case .urlSession:
                let configuration = URLSessionConfiguration.ephemeral
                configuration.httpMaximumConnectionsPerHost = 1
                return URLSessionAdapter(configuration: configuration)
            }
        }
    }

    /// Runs `body` with a generated client on a connection to a new test server.
    private func withClient(
        _ kind: AdapterKind,
        headers: HTTPFields = HTTPFields(),
        options: RequestOptions = RequestOptions(),
        responseBodies: FaradayTransport.ResponseBodies = .buffered,
        configure: FaradayTransport.Configure? = nil,
        handlers: [any Handler] = [],
        _ body: (Client, TestServer) async throws -> Void
    ) async throws {
        let server = try await TestServer.start()
        let adapter = kind.makeAdapter()
        let connection = Connection(url: nil, headers: headers, options: options) { builder in
            for handler in handlers { builder.use(handler) }
            builder.adapter = adapter
        }
        let transport = FaradayTransport(connection, responseBodies: responseBodies, configure: configure)
        let client = Client(serverURL: server.baseURL, transport: transport)
        do {
            try await body(client, server)
        } catch {
            try await (adapter as? AsyncHTTPClientAdapter)?.shutdown()
            try await server.shutdown()
            throw error
        }
        try await (adapter as? AsyncHTTPClientAdapter)?.shutdown()
        try await server.shutdown()
    }

    @Test(arguments: AdapterKind.allCases)
    func parametersHeadersAndTheStackReachTheServer(_ kind: AdapterKind) async throws {
        try await withClient(
            kind,
            headers: [HTTPField.Name("X-Connection")!: "default"],
            handlers: [Authorization.Handler(.bearer("fresh-token"))]
        ) { client, _ in
            let output = try await client.getEcho(query: .init(greeting: "hello world"), headers: .init(xTag: "t1"))
            let echo = try output.ok.body.json
            #expect(echo.method == "GET")
            #expect(echo.path == "/echo")
            #expect(echo.query.additionalProperties == ["greeting": "hello world"])
            let headers = Dictionary(echo.headers.map { ($0[0].lowercased(), $0[1]) }, uniquingKeysWith: { $1 })
            #expect(headers["x-tag"] == "t1")
            #expect(headers["x-connection"] == "default")
            #expect(headers["authorization"] == "Bearer fresh-token")
            #expect(headers["accept"] == "application/json")
        }
    }

    @Test(arguments: AdapterKind.allCases)
    func jsonBodiesAreSentAndDecoded(_ kind: AdapterKind) async throws {
        try await withClient(kind) { client, _ in
            let output = try await client.postEcho(body: .json(.init(message: "Grüße", count: 3)))
            let echo = try output.ok.body.json
            #expect(echo.method == "POST")
            let sent = try JSONDecoder().decode(Components.Schemas.Greeting.self, from: Data(echo.body.utf8))
            #expect(sent == .init(message: "Grüße", count: 3))
            #expect(echo.bodyLength == echo.body.utf8.count)
            #expect(
                echo.headers.contains {
                    $0[0].lowercased() == "content-type" && $0[1] == "application/json; charset=utf-8"
                }
            )
        }
    }

    @Test(arguments: AdapterKind.allCases)
    func documentedAndUndocumentedStatusesReachTheClient(_ kind: AdapterKind) async throws {
        try await withClient(kind) { client, _ in
            let found = try await client.getStatus(path: .init(code: 200))
            #expect(try await String(collecting: found.ok.body.plainText, upTo: 1024) == "status 200")

            let missing = try await client.getStatus(path: .init(code: 404))
            #expect(try await String(collecting: missing.notFound.body.plainText, upTo: 1024) == "status 404")

            guard case .default(let statusCode, _) = try await client.getStatus(path: .init(code: 418)) else {
                Issue.record("418 is not the documented default")
                return
            }
            #expect(statusCode == 418)
        }
    }

    @Test(arguments: AdapterKind.allCases)
    func middlewareRetriesAndAuthorizesGeneratedCalls(_ kind: AdapterKind) async throws {
        let retries = Locked(0)
        try await withClient(
            kind,
            handlers: [
                Authorization.Handler(.bearer("fresh-token")),
                Retry.Handler(backoff: .none, statuses: [503], onRetry: { _ in retries.withLock { $0 += 1 } }),
            ]
        ) { client, _ in
            let flaky = try await client.getFlaky(query: .init(key: "openapi-\(kind)", failures: 2))
            #expect(try flaky.ok.body.json.attempts == 3)
            #expect(retries.withLock { $0 } == 2)

            let secret = try await client.getProtected()
            #expect(try await String(collecting: secret.ok.body.plainText, upTo: 1024) == "secret data")
        }
    }

    @Test(arguments: AdapterKind.allCases)
    func withoutCredentialsTheDocumentedFailureIsReturned(_ kind: AdapterKind) async throws {
        try await withClient(kind) { client, _ in
            let output = try await client.getProtected()
            guard case .unauthorized = output else {
                Issue.record("expected .unauthorized, got \(output)")
                return
            }
        }
    }

    @Test(arguments: AdapterKind.allCases)
    func streamedUploadsArriveWhole(_ kind: AdapterKind) async throws {
        let chunk = [UInt8]((0..<65_536).map { UInt8($0 % 251) })
        let chunks = 32
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for _ in 0..<chunks { for byte in chunk { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 } }
        let (stream, continuation) = AsyncStream<ArraySlice<UInt8>>.makeStream()
        Task {
            for _ in 0..<chunks { continuation.yield(chunk[...]) }
            continuation.finish()
        }
        try await withClient(kind) { client, _ in
            let output = try await client.upload(body: .binary(HTTPBody(stream, length: .unknown)))
            let summary = try output.ok.body.json
            #expect(summary.bytes == chunk.count * chunks)
            #expect(summary.fnv1a == String(hash, radix: 16))
        }
    }

    @Test(arguments: AdapterKind.allCases)
    func streamedResponsesAreNotBufferedWhole(_ kind: AdapterKind) async throws {
        var options = RequestOptions()
        // AsyncHTTPClient pauses the transfer for a slow consumer, so 4 MiB stream through a 64 KiB
        // limit. URLSession on Linux cannot pause one, and keeps its default limit.
        if kind == .asyncHTTPClient { options.maxBufferedBodySize = 64 * 1024 }
        let count = 4 * 1024 * 1024
        try await withClient(kind, options: options, responseBodies: .streamed) { client, _ in
            let body = try await client.getBytes(path: .init(count: count)).ok.body.binary
            var received = 0
            var patternHolds = true
            var chunks = 0
            for try await chunk in body {
                for (offset, byte) in zip(received..., chunk) where byte != UInt8(offset % 251) { patternHolds = false }
                received += chunk.count
                chunks += 1
            }
            #expect(received == count)
            #expect(patternHolds)
            #expect(chunks > 1)
        }
    }

    @Test(arguments: AdapterKind.allCases)
    func bufferedResponsesRespectTheBufferLimit(_ kind: AdapterKind) async throws {
        var options = RequestOptions()
        options.maxBufferedBodySize = 64 * 1024
        try await withClient(kind, options: options) { client, _ in
            let small = try await client.getBytes(path: .init(count: 1000)).ok.body.binary
            #expect(small.length == .known(1000))
            #expect(try await [UInt8](collecting: small, upTo: 2000) == (0..<1000).map { UInt8($0 % 251) })

            let error = await #expect(throws: ClientError.self) {
                _ = try await client.getBytes(path: .init(count: 1024 * 1024))
            }
            #expect((error?.underlyingError as? FaradayError)?.code == .bodyTooLarge)
            #expect(error?.operationID == "getBytes")
        }
    }

    @Test(arguments: AdapterKind.allCases)
    func streamedBodiesLeftUnreadReleaseTheirConnection(_ kind: AdapterKind) async throws {
        try await withClient(kind, responseBodies: .streamed) { client, _ in
            for _ in 0..<5 {
                // 8 MiB the client never reads: dropping the body must end the transfer.
                _ = try await client.getBytes(path: .init(count: 8 * 1024 * 1024)).ok.body.binary
            }
            let echo = try await client.getEcho(query: .init(greeting: "still here")).ok.body.json
            #expect(echo.query.additionalProperties["greeting"] == "still here")
        }
    }

    @Test(arguments: AdapterKind.allCases)
    func aTruncatedStreamFailsTheBody(_ kind: AdapterKind) async throws {
        try await withClient(kind, responseBodies: .streamed) { client, _ in
            let body = try await client.getTruncated().ok.body.binary
            await #expect(throws: FaradayError.self) {
                for try await _ in body {}
            }
        }
    }

    @Test(arguments: AdapterKind.allCases)
    func configureSeesEveryOperationAndCanStreamOne(_ kind: AdapterKind) async throws {
        let operations = Locked<[String]>([])
        let configure: FaradayTransport.Configure = { request, operationID in
            operations.withLock { $0.append(operationID) }
            if operationID == "getBytes" { request.options.streaming = .chunks }
            request.headers[HTTPField.Name("X-Operation")!] = operationID
        }
        try await withClient(kind, configure: configure) { client, _ in
            let echo = try await client.getEcho().ok.body.json
            #expect(echo.headers.contains { $0[0].lowercased() == "x-operation" && $0[1] == "getEcho" })
            let bytes = try await client.getBytes(path: .init(count: 100_000)).ok.body.binary
            #expect(bytes.iterationBehavior == .single)
            #expect(try await [UInt8](collecting: bytes, upTo: 200_000).count == 100_000)
        }
        #expect(operations.withLock { $0 } == ["getEcho", "getBytes"])
    }

    @Test func connectionFailuresAreFaradayErrors() async throws {
        let server = try await TestServer.start()
        let url = server.baseURL
        try await server.shutdown()
        let connection = Connection(url: nil) { $0.adapter = URLSessionAdapter() }
        let client = Client(serverURL: url, transport: FaradayTransport(connection))
        let error = await #expect(throws: ClientError.self) { _ = try await client.getEcho() }
        #expect((error?.underlyingError as? FaradayError)?.code == .connectionFailed)
    }

    @Test func aServerURLThatIsNotHTTPIsAnInvalidURL() async throws {
        let connection = Connection(url: nil) { $0.adapter = TestAdapter() }
        let client = Client(serverURL: URL(string: "ftp://example.com")!, transport: FaradayTransport(connection))
        let error = await #expect(throws: ClientError.self) { _ = try await client.getEcho() }
        #expect((error?.underlyingError as? FaradayError)?.code == .invalidURL)
    }

    @Test func requestURLsJoinTheServerURLAndThePath() {
        let base = URL(string: "https://api.example.com/v1/")!
        #expect(
            FaradayTransport.absoluteURL(baseURL: base, path: "/users?id=1") == "https://api.example.com/v1/users?id=1"
        )
        #expect(FaradayTransport.absoluteURL(baseURL: base, path: "users") == "https://api.example.com/v1/users")
        #expect(
            FaradayTransport.absoluteURL(baseURL: URL(string: "http://127.0.0.1:8080")!, path: "/echo")
                == "http://127.0.0.1:8080/echo"
        )
    }

    @Test func bodiesThatIterateOnceAreNotReplayed() {
        #expect(RequestBody(openAPIBody: HTTPBody("again")).isReplayable)
        #expect(RequestBody(openAPIBody: HTTPBody("again")).length == 5)
        let (stream, continuation) = AsyncStream<ArraySlice<UInt8>>.makeStream()
        continuation.finish()
        let once = RequestBody(openAPIBody: HTTPBody(stream, length: .unknown))
        #expect(!once.isReplayable)
        #expect(once.length == nil)
    }
}
