import Faraday
import FaradayHAL
import Foundation
import Testing

@Suite struct HALMiddlewareTests {
    private func connection(_ stubs: TestAdapter) throws -> Connection {
        try Connection(url: "https://shop.example") { builder in
            builder.use(EncodeHAL.Handler())
            builder.use(DecodeHAL.Handler(contentTypes: ["application/vnd.shop+json"]))
            builder.adapter = stubs
        }
    }

    private func answer(_ type: String, _ body: String, status: HTTPResponse.Status = .ok) -> StubResponse {
        var headers = HTTPFields()
        headers[.contentType] = type
        return StubResponse(status: status, headers: headers, body: body)
    }

    @Test func asksForHALAndReadsOnlyHAL() async throws {
        let stubs = TestAdapter()
        stubs.get("/hal") { env, _ in
            #expect(env.request.headers[.accept]?.contains(HAL.mediaType) == true)
            return answer("application/hal+json; charset=utf-8", #"{"a":1,"_links":{"self":{"href":"/hal"}}}"#)
        }
        stubs.get("/vendor") { _, _ in answer("application/vnd.shop+json", #"{"b":2}"#) }
        stubs.get("/plain") { _, _ in answer("application/json", #"{"_links":[]}"#) }
        stubs.get("/empty") { _, _ in answer("application/hal+json", "", status: .noContent) }
        let connection = try connection(stubs)
        let hal = try await connection.get("hal").value
        #expect(hal.representation?["a"] == 1)
        #expect(hal.representation?.url?.absoluteString == "https://shop.example/hal")
        #expect(try await connection.get("vendor").value.representation?["b"] == 2)
        // Plain JSON is left alone (here it would not even be valid HAL), and so is no body.
        #expect(try await connection.get("plain").value.representation == nil)
        #expect(try await connection.get("empty").value.representation == nil)
    }

    @Test func malformedHALIsAParsingErrorCarryingTheBody() async throws {
        let stubs = TestAdapter()
        stubs.get("/bad") { _, _ in answer("application/hal+json", #"{"_links": {"self": {}}}"#) }
        let error = await #expect(throws: FaradayError.self) { try await connection(stubs).get("bad").value }
        #expect(error?.code == .parsingFailed)
        #expect(error?.bodyText == #"{"_links": {"self": {}}}"#)
        #expect(error?.url?.absoluteString == "https://shop.example/bad")
    }

    @Test func rendersRepresentationsAndKeepsACallersContentType() async throws {
        let stubs = TestAdapter()
        let sent = Recorder()
        stubs.post("/orders") { env, _ in
            sent.record(
                "\(env.request.headers[.contentType] ?? "none") \(String(decoding: try env.request.body.bytes, as: UTF8.self))"
            )
            return StubResponse(status: .created)
        }
        let connection = try connection(stubs)
        let order = Representation(["total": 1]).addingLink("self", href: "/orders/1")
        _ = try await connection.post("orders", body: .representation(order)).value
        _ = try await connection.post(
            "orders",
            headers: [.contentType: "application/vnd.shop+json"],
            body: .representation(order)
        ).value
        #expect(sent.log.count == 2)
        #expect(sent.log[0].hasPrefix("application/hal+json {"))
        #expect(sent.log[1].hasPrefix("application/vnd.shop+json {"))
        let body = try #require(sent.log[0].split(separator: " ", maxSplits: 1).last)
        #expect(try Representation(data: Data(body.utf8)) == order)
    }

    /// EncodeHAL above EncodeJSON renders representations as HAL; below it, EncodeJSON would send
    /// them as plain JSON, so the first request fails before anything is sent, naming the fix.
    @Test func encodeHALBelowEncodeJSONIsRefusedOnFirstUse() async throws {
        let stubs = TestAdapter()
        stubs.post("/orders") { env, _ in StubResponse(body: env.request.headers[.contentType] ?? "none") }
        let order = Representation(["total": 1])
        let above = try Connection(url: "https://shop.example") { builder in
            builder.use(EncodeHAL.Handler())
            builder.use(EncodeJSON.Handler())
            builder.adapter = stubs
        }
        #expect(try await above.post("orders", body: .representation(order)).value.response?.text == HAL.mediaType)
        let below = try Connection(url: "https://shop.example") { builder in
            builder.use(EncodeJSON.Handler())
            builder.use(EncodeHAL.Handler())
            builder.adapter = stubs
        }
        let error = await #expect(throws: FaradayError.self) {
            try await below.post("orders", body: .representation(order)).value
        }
        #expect(error?.code == .misplacedHandler)
        #expect(error?.message.contains("Put EncodeHAL.Handler above EncodeJSON.Handler") == true)
        #expect(stubs.calls.count == 1)
    }
}

/// A thread-safe log of events.
final class Recorder: Sendable {
    private let events = Locked<[String]>([])
    func record(_ event: String) { events.withLock { $0.append(event) } }
    var log: [String] { events.withLock { $0 } }
}
