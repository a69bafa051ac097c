import Faraday
import FaradayAsyncHTTPClient
import FaradayObservability
import FaradayTestSupport
import Foundation
import InMemoryTracing
import Testing
import Tracing

/// With a tracer bootstrapped for the process, a call through AsyncHTTPClient is one span:
/// TraceRequests', not AsyncHTTPClient's too.
@Suite(.timeLimit(.minutes(1))) struct OneSpanPerCallTests {
    /// The process's tracer: `InstrumentationSystem` takes one per process, so it is made once.
    static let tracer: InMemoryTracer = {
        let tracer = InMemoryTracer()
        InstrumentationSystem.bootstrap(tracer)
        return tracer
    }()

    @Test func aCallThroughAsyncHTTPClientIsOneSpan() async throws {
        let tracer = Self.tracer
        let server = try await TestServer.start()
        // Made after the bootstrap: AsyncHTTPClient would pick the tracer up for its own spans.
        let adapter = AsyncHTTPClientAdapter()
        let connection = try Connection(url: server.baseURL.absoluteString) { builder in
            builder.use(TraceRequests.Handler())
            builder.use(FollowRedirects.Handler())
            builder.use(Retry.Handler(backoff: .none, statuses: [503], sleep: { _ in }))
            builder.adapter = adapter
        }
        let reply = try await connection.get("redirect/302", params: ["to": "/flaky?key=one-span&failures=1"]).value
        try await adapter.shutdown()
        try await server.shutdown()
        #expect(reply.response?.status == .ok)
        let spans = tracer.finishedSpans
        #expect(spans.count == 1, "\(spans.map(\.operationName))")
        let span = try #require(spans.first)
        #expect(span.kind == .client)
        #expect(span.events.map(\.name) == ["redirect", "retry"])
        #expect(span.attributes["http.request.resend_count"]?.toSpanAttribute() == 2)
    }
}
