import Faraday
import Foundation
import Testing

@Suite(.timeLimit(.minutes(1))) struct RaiseErrorTests {
    @Test(arguments: [
        (400, FaradayError.Code.badRequest), (401, .unauthorized), (404, .resourceNotFound),
        (422, .unprocessableEntity),
        (429, .tooManyRequests), (418, .clientError), (500, .serverError), (503, .serverError),
    ])
    func statusesBecomeNamedErrors(_ status: Int, _ code: FaradayError.Code) async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/x") { _, _ in
            StubResponse(status: .init(code: status), headers: [.retryAfter: "5"], body: "nope")
        }
        await #expect {
            try await makeConnection([RaiseError.Handler()], adapter: stubs).get("x").value
        } throws: { error in
            guard let error = error as? FaradayError else { return false }
            return error.code == code && error.status?.code == status && error.method == .get
                && error.url?.absoluteString == "https://api.example.com/v1/x" && error.response?.text == "nope"
                && error.response?.headers[.retryAfter] == "5"
        }
    }

    /// A 401 to a request the stack sent without credentials (to another origin than the
    /// connection's) says why; one to the connection's own origin does not.
    @Test func anUnauthorizedAnswerToARequestSentWithoutCredentialsSaysWhy() async throws {
        let stubs = TestAdapter()
        stubs.get("https://other.example/x") { _, _ in StubResponse(status: .unauthorized) }
        stubs.get("/v1/x") { _, _ in StubResponse(status: .unauthorized) }
        let connection = try Connection(url: "https://api.example.com/v1", headers: [.authorization: "Bearer t"]) {
            $0.use(RaiseError.Handler())
            $0.adapter = stubs
        }
        await #expect {
            try await connection.get("https://other.example/x").value
        } throws: { error in
            (error as? FaradayError)?.message == "The server answered 401 Unauthorized. No credentials were sent: "
                + "https://other.example:443 is not one of the credential origins (https://api.example.com:443)."
        }
        await #expect {
            try await connection.get("x").value
        } throws: { error in
            (error as? FaradayError)?.message == "The server answered 401 Unauthorized."
        }
    }

    @Test func localhostAndALoopbackAddressAreDifferentOriginsAndTheErrorSaysSo() async throws {
        let stubs = TestAdapter()
        stubs.get("http://localhost:8080/x") { _, _ in StubResponse(status: .forbidden) }
        let connection = try Connection(url: "http://127.0.0.1:8080", headers: [.authorization: "Bearer t"]) {
            $0.use(RaiseError.Handler())
            $0.adapter = stubs
        }
        await #expect {
            try await connection.get("http://localhost:8080/x").value
        } throws: { error in
            (error as? FaradayError)?.message.hasSuffix(
                "(http://127.0.0.1:8080). localhost, 127.0.0.1 and [::1] are different origins."
            ) == true
        }
    }

    @Test func successAndAllowedStatusesPass() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/ok") { _, _ in StubResponse(status: .ok) }
        stubs.get("/v1/gone") { _, _ in StubResponse(status: .notFound) }
        let connection = try makeConnection([RaiseError.Handler(allowedStatuses: [404])], adapter: stubs)
        #expect(try await connection.get("ok").value.status == .ok)
        #expect(try await connection.get("gone").value.status == .notFound)
    }

    @Test(arguments: [
        // Every row of ErrorDocument's list of shapes.
        (#"{"message":"name is taken"}"#, nil as String?, "name is taken" as String?),
        (#"{"error":"invalid token"}"#, nil, "invalid token"),
        (#"{"error":"invalid_token"}"#, "invalid_token", "invalid_token"),
        (
            #"{"error":"invalid_grant","error_description":"The code has expired"}"#, "invalid_grant",
            "The code has expired"
        ),
        (#"{"error":{"code":"E42","message":"quota"}}"#, "E42", "quota"),
        (#"{"code":17,"message":"bad field"}"#, "17", "bad field"),
        (#"{"errors":[{"code":"first","message":"one"},{"code":"second"}]}"#, "first", "one"),
        (
            #"{"type":"https://example.com/out-of-credit","title":"Out of credit","detail":"Balance 30"}"#,
            "https://example.com/out-of-credit", "Balance 30"
        ),
    ])
    func jsonErrorDocumentsAreParsed(_ body: String, _ code: String?, _ message: String?) async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/x") { _, _ in
            StubResponse(status: .unprocessableContent, headers: [.contentType: "application/json"], body: body)
        }
        do {
            _ = try await makeConnection([RaiseError.Handler()], adapter: stubs).get("x").value
            Issue.record("expected an error")
        } catch let error as FaradayError {
            #expect(error.document?.code == code)
            #expect(error.document?.message == message)
            #expect(error.bodyText == body)
            #expect(error.bodyJSON != nil)
        }
    }

    @Test func aProblemDetailsBodySurfacesItsTitleAndDetail() async throws {
        let stubs = TestAdapter()
        stubs.post("/v1/orders") { _, _ in
            StubResponse(
                status: .unprocessableContent,
                headers: [.contentType: "application/problem+json"],
                body:
                    #"{"type":"https://example.com/probs/out-of-stock","title":"Out of stock","status":422,"detail":"Item 42 is sold out","instance":"/orders/7"}"#
            )
        }
        do {
            _ = try await makeConnection([RaiseError.Handler()], adapter: stubs).post("orders").value
            Issue.record("expected an error")
        } catch let error as FaradayError {
            #expect(error.code == .unprocessableEntity)
            #expect(error.document?.title == "Out of stock")
            #expect(error.document?.detail == "Item 42 is sold out")
            #expect(error.document?.code == "https://example.com/probs/out-of-stock")
            #expect(error.message == "The server answered 422 Unprocessable Content. Out of stock: Item 42 is sold out")
            #expect(error.bodyJSON?["instance"]?.string == "/orders/7")
        }
    }

    @Test(arguments: ["", "not json", "[1,2]", #"{"unrelated":true}"#, "{\"error\":"])
    func otherBodiesHaveNoDocument(_ body: String) {
        #expect(FaradayError.ErrorDocument(parsing: Data(body.utf8)) == nil)
    }

    @Test func aStreamedErrorIsRaisedBeforeAnyFrameReachesTheUser() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/s") { _, _ in
            StubResponse(status: .serviceUnavailable, body: ResponseBody(pieces: [Data("a".utf8)]))
        }
        var frames = 0
        await #expect {
            for try await _ in try makeConnection([RaiseError.Handler()], adapter: stubs)
                .get("s", configure: { $0.options.streaming = .chunks }).completions
            {
                frames += 1
            }
        } throws: { error in
            (error as? FaradayError)?.code == .serverError
        }
        #expect(frames == 0)
    }
}
