import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An adapter that answers from stubs, for unit-testing middleware and clients without sockets.
///
/// ```swift
/// let stubs = TestAdapter()
/// stubs.get("/users/1") { _, _ in StubResponse(body: #"{"id":1}"#) }
/// stubs.stub(.post, .regex(#"/users/(\d+)/notes"#), body: .equals("hi")) { env, match in
///     StubResponse(status: .created, body: "note for \(match.captures[0] ?? "")")
/// }
/// let connection = try Connection(url: "https://api.example.com") { $0.adapter = stubs }
/// // … exercise the client …
/// try stubs.verifyStubbedCalls()
/// ```
///
/// A request takes the first matching stub that has not been used yet, in the order they were
/// added; once all matching stubs are used, the last of them answers again. A request no stub
/// matches fails with ``FaradayError/Code/noStubMatched``, naming the closest stubs. In strict mode
/// the query must match exactly and the request may carry no header the stub does not name (besides
/// `User-Agent` and `Content-Length`). With `passThrough`, a request no stub matches goes to that
/// adapter instead. Safe to use from many tasks at once.
public final class TestAdapter: Adapter {
    private struct State {
        var stubs: [Stub] = []
        var consumed: [Bool] = []
        var calls: [Request] = []
        var cancelledCalls = 0
        var chunksSent = 0
    }

    private let state = Locked(State())
    /// Whether queries and headers must match exactly.
    public let strictMode: Bool
    /// The largest request body the adapter reads to match stubs.
    public let maxRequestBodySize: Int
    /// Where requests no stub matches go, instead of failing with
    /// ``FaradayError/Code/noStubMatched``: a real adapter, or a ``CassetteAdapter``.
    public let passThrough: (any Adapter)?

    /// Creates an adapter with no stubs; with `passThrough`, requests no stub matches are sent
    /// through that adapter (to the network) rather than failing.
    public init(
        strictMode: Bool = false,
        maxRequestBodySize: Int = RequestOptions.defaultMaxBufferedBodySize,
        passThrough: (any Adapter)? = nil
    ) {
        self.strictMode = strictMode
        self.maxRequestBodySize = maxRequestBodySize
        self.passThrough = passThrough
    }

    // MARK: Stubbing

    /// Adds a stub.
    ///
    /// - Parameters:
    ///   - method: the method to match.
    ///   - target: a path, a full URL, or a regex.
    ///   - query: query parameters the request must have.
    ///   - headers: headers the request must have.
    ///   - body: the body the request must have.
    ///   - respond: produces the response; it may throw a ``FaradayError`` to simulate a failure.
    public func stub(
        _ method: HTTPRequest.Method,
        _ target: Stub.Target,
        query: Params? = nil,
        headers: HTTPFields = HTTPFields(),
        body: Stub.BodyMatcher? = nil,
        respond: @escaping @Sendable (Env, Stub.Match) async throws -> StubResponse
    ) {
        let stub = Stub(method: method, target: target, query: query, headers: headers, body: body, respond: respond)
        state.withLock { state in
            state.stubs.append(stub)
            state.consumed.append(false)
        }
    }

    /// Adds a stub that always gives `response`.
    public func stub(
        _ method: HTTPRequest.Method,
        _ target: Stub.Target,
        query: Params? = nil,
        headers: HTTPFields = HTTPFields(),
        body: Stub.BodyMatcher? = nil,
        response: StubResponse
    ) {
        stub(method, target, query: query, headers: headers, body: body) { _, _ in response }
    }

    /// Adds a GET stub for a path or full URL.
    public func get(
        _ path: String,
        query: Params? = nil,
        headers: HTTPFields = HTTPFields(),
        respond: @escaping @Sendable (Env, Stub.Match) async throws -> StubResponse
    ) {
        stub(.get, .path(path), query: query, headers: headers, respond: respond)
    }

    /// Adds a POST stub for a path or full URL.
    public func post(
        _ path: String,
        query: Params? = nil,
        headers: HTTPFields = HTTPFields(),
        body: Stub.BodyMatcher? = nil,
        respond: @escaping @Sendable (Env, Stub.Match) async throws -> StubResponse
    ) {
        stub(.post, .path(path), query: query, headers: headers, body: body, respond: respond)
    }

    /// Adds a PUT stub for a path or full URL.
    public func put(
        _ path: String,
        query: Params? = nil,
        headers: HTTPFields = HTTPFields(),
        body: Stub.BodyMatcher? = nil,
        respond: @escaping @Sendable (Env, Stub.Match) async throws -> StubResponse
    ) {
        stub(.put, .path(path), query: query, headers: headers, body: body, respond: respond)
    }

    // MARK: Inspecting

    /// Throws ``FaradayError/Code/noStubMatched`` naming the stubs that no request used.
    public func verifyStubbedCalls() throws(FaradayError) {
        let unused = state.withLock { state in
            zip(state.stubs, state.consumed).filter { !$0.1 }.map { $0.0.description }
        }
        guard unused.isEmpty else {
            throw FaradayError(.noStubMatched, "Expected requests not made: \(unused.joined(separator: "; ")).")
        }
    }

    /// The requests received so far, in order (including those no stub matched).
    public var calls: [Request] { state.withLock { $0.calls } }

    /// How many calls were cancelled while the adapter was answering them.
    public var cancelledCalls: Int { state.withLock { $0.cancelledCalls } }

    /// How many body chunks of streamed responses the adapter has handed out.
    public var chunksSent: Int { state.withLock { $0.chunksSent } }

    // MARK: Adapter

    /// The pass-through adapter's threads: a request no stub matches runs on them.
    public func ownsCurrentThread() -> Bool { passThrough?.ownsCurrentThread() ?? false }

    public func call(_ env: Env) async throws(FaradayError) -> Completions {
        let request = env.request
        let requestBody: Data
        do {
            requestBody = try await request.body.collect(upTo: maxRequestBodySize)
        } catch {
            state.withLock { $0.calls.append(request) }
            throw error
        }
        let found: (Stub, Stub.Match)
        do {
            found = try findStub(for: request, body: requestBody)
        } catch {
            guard let passThrough else { throw error }
            var passed = env
            // The body was read to match stubs: send what was read.
            if request.body.bytesInMemory == nil {
                passed.request.body = .bytes(requestBody, contentType: request.body.contentType)
            }
            return try await passThrough.call(passed)
        }
        let (stub, match) = found
        let response: StubResponse
        do {
            response = try await stub.respond(env, match)
        } catch {
            throw FaradayError.wrapping(error, request: request)  // the stub's own closure
        }
        if response.waitsForCancellation {
            try await waitForCancellation(env)
        }

        var head = env
        if request.options.streaming == nil {
            if case .fail(let error) = response.ending.kind { throw error.attaching(request) }
            if case .waitForCancellation = response.ending.kind { try await waitForCancellation(env) }
            let body = try await Self.whole(response.body, request)
            head.response = ResponseData(status: response.status, headers: response.headers, body: body)
            return .buffered(consume head)
        }
        head.response = ResponseData(status: response.status, headers: response.headers)
        let pieces = StubPieces(response: response, env: env, adapter: self)
        return .streamed(head: head, body: ResponseBody(stream: ByteStream(pieces)))
    }

    /// A stub's whole body for a buffered request, within the request's limit: bytes in memory
    /// as they are (no stream made for them), any other body read to its end.
    private static func whole(_ body: ResponseBody, _ request: Request) async throws(FaradayError) -> Data {
        let limit = request.options.maxBufferedBodySize
        do throws(FaradayError) {
            guard body.isInMemory, let bytes = body.bytes() else { return try await body.collect(upTo: limit) }
            guard bytes.count <= limit else {
                throw FaradayError(.bodyTooLarge, "The response body is larger than \(limit) bytes.")
            }
            return bytes
        } catch {
            throw error.attaching(request)
        }
    }

    /// The pieces of a streamed stub response's body, then its ending.
    private struct StubPieces: AsyncSequence, Sendable {
        let response: StubResponse
        let env: Env
        let adapter: TestAdapter

        struct AsyncIterator: AsyncIteratorProtocol {
            let chunks: StubPieces
            var pieces: ByteStream.AsyncIterator

            mutating func next() async throws -> Data? {
                try chunks.env.cancellation.check()
                if let piece = try await pieces.next() {
                    chunks.adapter.state.withLock { $0.chunksSent += 1 }
                    return piece
                }
                switch chunks.response.ending.kind {
                case .finish: return nil
                case .fail(let error): throw error.attaching(chunks.env.request)
                case .waitForCancellation:
                    try await chunks.adapter.waitForCancellation(chunks.env)
                    return nil
                }
            }
        }

        func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(chunks: self, pieces: response.body.pieces().makeAsyncIterator())
        }
    }

    private func waitForCancellation(_ env: Env) async throws(FaradayError) {
        let gate = AsyncStream<Void>.makeStream()
        await env.cancellation.withCancellationHandler {
            for await _ in gate.stream {}
        } onCancel: {
            gate.continuation.finish()
        }
        state.withLock { $0.cancelledCalls += 1 }
        throw FaradayError(.cancelled, "The request was cancelled.", method: env.request.method, url: env.request.url)
    }

    /// Records the call and finds its stub, under one lock.
    private func findStub(for request: Request, body: Data) throws(FaradayError) -> (Stub, Stub.Match) {
        try state.withLock { state throws(FaradayError) in
            state.calls.append(request)
            var best: [(Stub.Mismatch, Stub)] = []
            // The first stub that matches and is not used yet, else the last one that matches.
            var unused: (Int, Stub.Match)?
            var last: (Int, Stub.Match)?
            // By index: each stub is read in place, not copied.
            for index in state.stubs.indices {
                switch state.stubs[index].evaluate(request, body: body, strict: strictMode) {
                case .success(let match):
                    if unused == nil && !state.consumed[index] { unused = (index, match) }
                    last = (index, match)
                case .failure(let mismatch): best.append((mismatch, state.stubs[index]))
                }
            }
            if let (index, match) = unused ?? last {
                state.consumed[index] = true
                return (state.stubs[index], match)
            }
            let closest = best.sorted { $0.0.stage.rawValue > $1.0.stage.rawValue }.prefix(3).map {
                "\($0.1) (differs in \($0.0))"
            }
            var message = "No stub for \(request.method.rawValue) \(request.url.absoluteString)."
            message += closest.isEmpty ? " There are no stubs." : " Closest: \(closest.joined(separator: "; "))."
            throw FaradayError(.noStubMatched, message, method: request.method, url: request.url)
        }
    }
}
