import Faraday
import FaradayObservability
import Foundation
import InMemoryTracing
import MetricsTestKit
import Testing
import Tracing

@Suite(.timeLimit(.minutes(1))) struct TraceRequestsTests {
    private func connection(_ tracer: InMemoryTracer, _ stubs: TestAdapter) throws -> Connection {
        try Connection(url: "https://api.example.com/v1") { builder in
            builder.use(TraceRequests.Handler(tracer: tracer))
            builder.adapter = stubs
        }
    }

    /// TraceRequests above FollowRedirects above a Retry of 503s.
    private func tracedWithRetriesAndRedirects(_ tracer: InMemoryTracer, _ stubs: TestAdapter) throws -> Connection {
        try Connection(url: "https://api.example.com/v1") { builder in
            builder.use(TraceRequests.Handler(tracer: tracer))
            builder.use(FollowRedirects.Handler())
            builder.use(Retry.Handler(backoff: .none, statuses: [503], sleep: { _ in }))
            builder.adapter = stubs
        }
    }

    @Test func eachCallIsAClientSpanWhoseContextTravelsInTheHeaders() async throws {
        let tracer = InMemoryTracer()
        let stubs = TestAdapter()
        stubs.get("/v1/users") { env, _ in
            StubResponse(body: env.request.headers[HTTPField.Name(InMemoryTracer.traceIDKey)!] ?? "none")
        }
        let traceID = try await connection(tracer, stubs).get("users").value.response?.text
        let span = try #require(tracer.finishedSpans.first)
        #expect(span.operationName == "GET")
        #expect(span.kind == .client)
        #expect(span.attributes["http.request.method"]?.toSpanAttribute() == "GET")
        #expect(span.attributes["url.full"]?.toSpanAttribute() == "https://api.example.com/v1/users")
        #expect(span.attributes["http.response.status_code"]?.toSpanAttribute() == 200)
        #expect(span.attributes["server.port"]?.toSpanAttribute() == 443)
        #expect(traceID == span.spanContext.traceID, "the server received the trace")
    }

    /// With no tracer (the default before `InstrumentationSystem.bootstrap`), a call passes
    /// through untouched: no headers added, its completions and errors as the adapter gave them.
    @Test func withNoTracerACallPassesThroughUntouched() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/users") { env, _ in StubResponse(body: "\(env.request.headers.count)") }
        stubs.get("/v1/down") { _, _ in StubResponse(status: 503) }
        let connection = try Connection(url: "https://api.example.com/v1") { builder in
            builder.use(TraceRequests.Handler(tracer: NoOpTracer()))
            builder.use(RaiseError.Handler())
            builder.adapter = stubs
        }
        let plain = try Connection(url: "https://api.example.com/v1") { $0.adapter = stubs }
        let sent = try await connection.get("users").value.response?.text
        #expect(sent == (try await plain.get("users").value.response?.text))
        await #expect {
            try await connection.get("down").value
        } throws: { error in
            (error as? FaradayError)?.code == .serverError
        }
    }

    @Test func urlFullCarriesNoCredentialsAsOpenTelemetryRequires() async throws {
        let tracer = InMemoryTracer()
        let stubs = TestAdapter()
        stubs.get("https://ada:pw@api.example.com/v1/files") { _, _ in StubResponse() }
        let connection = try Connection(url: "https://ada:pw@api.example.com/v1") { builder in
            builder.use(TraceRequests.Handler(tracer: tracer))
            builder.adapter = stubs
        }
        _ = try await connection.get(
            "files",
            params: ["access_token": "t0k", "X-Amz-Signature": "s1g", "page": "2"]
        ).value
        let span = try #require(tracer.finishedSpans.first)
        guard case .string(let full) = span.attributes["url.full"]?.toSpanAttribute() else {
            Issue.record("url.full is not recorded as a string")
            return
        }
        #expect(full.hasPrefix("https://REDACTED:REDACTED@api.example.com/v1/files?"))
        for secret in ["ada", "pw@", "t0k", "s1g"] { #expect(!full.contains(secret), "\(full)") }
        #expect(full.contains("access_token=REDACTED") && full.contains("X-Amz-Signature=REDACTED"))
        #expect(full.contains("page=2"))
    }

    @Test func aParentSpanIsContinued() async throws {
        let tracer = InMemoryTracer()
        let stubs = TestAdapter()
        stubs.get("/v1/x") { _, _ in StubResponse() }
        let connection = try connection(tracer, stubs)
        try await tracer.withAnySpan("parent") { _ in _ = try await connection.get("x").value }
        let spans = tracer.finishedSpans
        let child = try #require(spans.first { $0.operationName == "GET" })
        let parent = try #require(spans.first { $0.operationName == "parent" })
        #expect(child.spanContext.traceID == parent.spanContext.traceID)
        #expect(child.spanContext.parentSpanID == parent.spanContext.spanID)
    }

    /// Above Retry and FollowRedirects: one span for the call, its redirects and retries as events.
    @Test func retriesAndRedirectsAreEventsOfTheCallsOneSpan() async throws {
        let tracer = InMemoryTracer()
        let stubs = TestAdapter()
        stubs.get("/v1/old") { _, _ in StubResponse(status: .found, headers: [.location: "/v1/new?token=t0k"]) }
        let calls = Locked(0)
        stubs.get("/v1/new") { _, _ in
            StubResponse(status: calls.increment() == 1 ? .serviceUnavailable : .ok)
        }
        let connection = try tracedWithRetriesAndRedirects(tracer, stubs)
        _ = try await connection.get("old").value
        let spans = tracer.finishedSpans
        #expect(spans.count == 1)
        let span = try #require(spans.first)
        #expect(span.events.map(\.name) == ["redirect", "retry"])
        #expect(span.events.first?.attributes["http.response.status_code"]?.toSpanAttribute() == 302)
        #expect(
            span.events.first?.attributes["url.full"]?.toSpanAttribute()
                == "https://api.example.com/v1/new?token=REDACTED"
        )
        #expect(span.events.last?.attributes["faraday.attempt"]?.toSpanAttribute() == 1)
        #expect(span.attributes["http.request.resend_count"]?.toSpanAttribute() == 2)
        #expect(span.attributes["http.response.status_code"]?.toSpanAttribute() == 200)
        #expect(span.status?.code != .error)
    }

    /// The resend count counts every request sent again, whichever of Retry and FollowRedirects
    /// is above the other.
    @Test func theResendCountCountsRetriesAndRedirectsInEitherOrder() async throws {
        let tracer = InMemoryTracer()
        let stubs = TestAdapter()
        let calls = Locked(0)
        stubs.get("/v1/a") { _, _ in
            calls.increment() == 1
                ? StubResponse(status: .serviceUnavailable)
                : StubResponse(status: .found, headers: [.location: "/v1/b"])
        }
        stubs.get("/v1/b") { _, _ in StubResponse() }
        let connection = try tracedWithRetriesAndRedirects(tracer, stubs)
        _ = try await connection.get("a").value
        let span = try #require(tracer.finishedSpans.first)
        #expect(span.events.map(\.name) == ["retry", "redirect"])
        #expect(span.attributes["http.request.resend_count"]?.toSpanAttribute() == 2)
    }

    /// What the layers and the adapter below trace is a child of the call's span.
    @Test func spansStartedBelowAreChildrenOfTheCallsSpan() async throws {
        let tracer = InMemoryTracer()
        let stubs = TestAdapter()
        stubs.get("/v1/x") { _, _ in
            tracer.withAnySpan("adapter work") { _ in }
            return StubResponse()
        }
        _ = try await connection(tracer, stubs).get("x").value
        let spans = tracer.finishedSpans
        let call = try #require(spans.first { $0.operationName == "GET" })
        let inner = try #require(spans.first { $0.operationName == "adapter work" })
        #expect(inner.spanContext.traceID == call.spanContext.traceID)
        #expect(inner.spanContext.parentSpanID == call.spanContext.spanID)
    }

    @Test func failuresAndServerErrorsMarkTheSpan() async throws {
        let tracer = InMemoryTracer()
        let stubs = TestAdapter()
        stubs.get("/v1/down") { _, _ in StubResponse(status: .serviceUnavailable) }
        let connection = try connection(tracer, stubs)
        _ = try await connection.get("down").value
        _ = try? await connection.get("missing").value
        let spans = tracer.finishedSpans
        #expect(spans.count == 2)
        #expect(spans.allSatisfy { $0.status?.code == .error })
        #expect(spans.last?.errors.isEmpty == false)
    }

    @Test func aStreamsSpanEndsWithItsLastFrame() async throws {
        let tracer = InMemoryTracer()
        let stubs = TestAdapter()
        stubs.get("/v1/s") { _, _ in StubResponse(body: ResponseBody(pieces: [Data("a".utf8), Data("b".utf8)])) }
        var iterator = try connection(tracer, stubs).get("s") { $0.options.streaming = .chunks }.completions
            .makeAsyncIterator()
        _ = try await iterator.next()
        #expect(tracer.finishedSpans.isEmpty)
        while try await iterator.next() != nil {}
        #expect(tracer.finishedSpans.count == 1)
    }
}

@Suite(.timeLimit(.minutes(1))) struct MetricsMonitorTests {
    @Test func callsFailuresRetriesAndDurationsAreRecorded() async throws {
        let metrics = TestMetrics()
        let stubs = TestAdapter()
        stubs.get("/v1/ok") { _, _ in StubResponse(body: "12345") }
        stubs.get("/v1/flaky") { _, _ in StubResponse(status: .serviceUnavailable) }
        let connection = try Connection(url: "https://api.example.com/v1") { builder in
            builder.use(Instrumentation.Handler(monitors: [MetricsMonitor(factory: metrics)]))
            builder.use(Retry.Handler(maxAttempts: 2, backoff: .none, statuses: [503]))
            builder.adapter = stubs
        }
        _ = try await connection.get("ok").value
        _ = try await connection.get("flaky").value
        _ = try? await connection.get("missing").value
        #expect(try metrics.expectCounter("faraday.requests", [("method", "GET"), ("status", "200")]).totalValue == 1)
        #expect(try metrics.expectCounter("faraday.requests", [("method", "GET"), ("status", "503")]).totalValue == 1)
        #expect(
            try metrics.expectCounter("faraday.failures", [("method", "GET"), ("error", "noStubMatched")]).totalValue
                == 1
        )
        #expect(try metrics.expectCounter("faraday.retries", [("method", "GET")]).totalValue == 1)
        #expect(metrics.counterTotal(label: "faraday.response.bytes") == 5)
        #expect(try metrics.expectTimer("faraday.duration", [("method", "GET")]).values.count == 3)
    }
}
