import Faraday
import Foundation
import Testing

@Suite(.timeLimit(.minutes(1))) struct EndpointTests {
    struct User: Codable, Sendable, Equatable {
        let id: Int
        let name: String
    }

    private func api(
        _ stubs: TestAdapter,
        _ handlers: [any Handler] = [],
        base: Endpoint<Void> = Endpoint(decoder: .none)
    ) throws -> API {
        API(connection: try makeConnection(handlers, adapter: stubs), base: base)
    }

    // MARK: Requests

    @Test func getDecodesAJSONResource() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/users/1") { _, _ in
            StubResponse(headers: [.contentType: "application/json"], body: #"{"id":1,"name":"Ada"}"#)
        }
        let api = try api(stubs)
        #expect(try await api.send(api.get(.json(User.self), from: "users/1")) == User(id: 1, name: "Ada"))
    }

    @Test func postEncodesTheBodyAndRunsThroughTheStack() async throws {
        let stubs = TestAdapter()
        stubs.post(
            "/v1/users",
            headers: [.contentType: "application/json", .init("X-Trail")!: "outer"],
            body: .matching { (try? JSONDecoder().decode(User.self, from: $0)) == User(id: 2, name: "Grace") }
        ) { _, _ in StubResponse(status: .created, body: #"{"id":2,"name":"Grace"}"#) }
        let recorder = Recorder()
        let api = try api(stubs, [Recording.Handler(name: "outer", recorder: recorder)])
        try await api.send(api.post(.json(User(id: 2, name: "Grace")), to: "users"))
        let created = try await api.send(
            api.post(.json(User(id: 2, name: "Grace")), to: "users", expecting: .json(User.self))
        )
        #expect(created.name == "Grace")
        #expect(recorder.log.filter { $0 == "outer.request" }.count == 2)
    }

    @Test func everyVerbBuildsItsMethod() throws {
        let api = try api(TestAdapter())
        #expect(api.head("a").method == .head)
        #expect(api.delete("a").method == .delete)
        #expect(api.delete(.json(User.self), at: "a").method == .delete)
        #expect(api.put(.text("x"), to: "a").method == .put)
        #expect(api.patch("a", with: .text("x")).method == .patch)
        #expect(api.patch("a", with: .text("x"), expecting: .text).method == .patch)
    }

    // MARK: Decoders

    @Test func textDataAndNoneDecoders() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/text") { _, _ in StubResponse(body: "héllo") }
        stubs.get("/v1/latin1") { _, _ in StubResponse(body: Data([0x68, 0xE9])) }
        stubs.get("/v1/empty") { _, _ in StubResponse(status: .noContent) }
        let api = try api(stubs)
        #expect(try await api.send(api.get(.text, from: "text")) == "héllo")
        #expect(try await api.send(api.get(.text(encoding: .isoLatin1), from: "latin1")) == "hé")
        #expect(try await api.send(api.get(.data, from: "latin1")) == Data([0x68, 0xE9]))
        try await api.send(api.get(.none, from: "empty"))
        try await api.send(api.get(.none, from: "text"))
    }

    @Test func textThatIsNotUTF8IsAParsingError() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/bytes") { _, _ in StubResponse(body: Data([0xFF, 0xFE, 0x00])) }
        let api = try api(stubs)
        await #expect {
            try await api.send(api.get(.text, from: "bytes"))
        } throws: { error in
            guard let error = error as? FaradayError else { return false }
            return error.code == .parsingFailed && error.response?.body == Data([0xFF, 0xFE, 0x00])
                && error.method == .get
        }
    }

    @Test func invalidJSONIsAParsingErrorCarryingTheBody() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/u") { _, _ in StubResponse(body: #"{"id":1,"name":"#) }
        let api = try api(stubs)
        await #expect {
            try await api.send(api.get(.json(User.self), from: "u"))
        } throws: { error in
            guard let error = error as? FaradayError else { return false }
            return error.code == .parsingFailed && error.bodyText == #"{"id":1,"name":"#
                && error.underlying is DecodingError
        }
    }

    @Test func jsonOfTheWrongShapeNamesTheCodingPath() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/u") { _, _ in StubResponse(body: #"{"id":"one","name":"Ada"}"#) }
        let api = try api(stubs)
        do {
            _ = try await api.send(api.get(.json(User.self), from: "u"))
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .parsingFailed)
            guard case .typeMismatch(_, let context)? = error.underlying as? DecodingError else {
                Issue.record("expected a type mismatch, got \(String(describing: error.underlying))")
                return
            }
            #expect(context.codingPath.map(\.stringValue) == ["id"])
        }
    }

    @Test func anEmptyBodyIsNilForAnOptionalAndAnErrorOtherwise() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/empty") { _, _ in StubResponse(status: .ok) }
        let api = try api(stubs)
        #expect(try await api.send(api.get(.json(User?.self), from: "empty")) == nil)
        try await api.send(api.get(.none, from: "empty"))
        await #expect {
            try await api.send(api.get(.json(User.self), from: "empty"))
        } throws: { error in
            (error as? FaradayError)?.code == .parsingFailed && (error as? FaradayError)?.status == .ok
        }
    }

    @Test func aCustomDecodersErrorsBecomeParsingErrors() async throws {
        struct Odd: Error {}
        let stubs = TestAdapter()
        stubs.get("/v1/x") { _, _ in StubResponse(body: "1,2,3") }
        let api = try api(stubs)
        let csv = ResponseDecoder<[Int]> { env in
            try (env.response?.text ?? "").split(separator: ",").map { piece in
                guard let number = Int(piece) else { throw Odd() }
                return number
            }
        }
        #expect(try await api.send(api.get(csv, from: "x")) == [1, 2, 3])
        stubs.get("/v1/y") { _, _ in StubResponse(body: "1,b") }
        await #expect {
            try await api.send(api.get(csv, from: "y"))
        } throws: { error in
            (error as? FaradayError)?.code == .parsingFailed && (error as? FaradayError)?.underlying is Odd
        }
    }

    // MARK: Status validation

    @Test func errorStatusesFailBeforeDecoding() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/u") { _, _ in
            StubResponse(
                status: .unprocessableContent,
                headers: [.contentType: "application/problem+json"],
                body: #"{"title":"Invalid user","detail":"name is required"}"#
            )
        }
        var api = try api(stubs)
        await #expect {
            try await api.send(api.get(.json(User.self), from: "u"))
        } throws: { error in
            guard let error = error as? FaradayError else { return false }
            return error.code == .unprocessableEntity && error.document?.title == "Invalid user"
                && error.document?.detail == "name is required"
        }
        api.validatesStatus = false
        #expect(try await api.send(api.get(.text, from: "u")).contains("Invalid user"))
    }

    // MARK: Authentication

    @Test(arguments: [
        (AuthenticationProvider.bearer("t0k"), "Bearer t0k"),
        (.basic(login: "ada", password: "pässword"), "Basic " + Data("ada:pässword".utf8).base64EncodedString()),
        (.token("abc", options: ["scope": "read"]), #"Token token="abc", scope="read""#),
        (
            .custom { request in
                try await Task.sleep(for: .milliseconds(1))
                request.headers[.authorization] = "Signed \(request.url.path)"
            }, "Signed /v1/me"
        ),
    ])
    func authenticationProvidersSetTheHeader(_ provider: AuthenticationProvider, _ expected: String) async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/me", headers: [.authorization: expected]) { _, _ in StubResponse(body: "me") }
        let api = try api(stubs)
        #expect(try await api.send(api.get(.text, from: "me").authenticated(with: provider)) == "me")
    }

    @Test func theBasesCredentialsApplyToEveryEndpoint() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/me", headers: [.authorization: "Bearer base"]) { _, _ in StubResponse(body: "me") }
        let api = try api(stubs, base: Endpoint<Void>(decoder: .none).authenticated(with: .bearer("base")))
        #expect(try await api.send(api.get(.text, from: "me")) == "me")
    }

    @Test func aFailingProviderFailsTheCallBeforeSending() async throws {
        struct Locked: Error {}
        let stubs = TestAdapter()
        stubs.get("/v1/me") { _, _ in StubResponse() }
        let api = try api(stubs)
        await #expect {
            try await api.send(api.get(.none, from: "me").authenticated(with: .custom { _ in throw Locked() }))
        } throws: { error in
            guard let error = error as? FaradayError else { return false }
            return error.underlying is Locked && error.method == .get
        }
        #expect(stubs.calls.isEmpty)
    }

    // MARK: Dependent requests

    @Test func endpointsDeriveFromABase() async throws {
        var base = Endpoint<Void>(
            .get,
            "v2",
            query: ["lang": "en"],
            headers: [.userAgent: "App/iOS", .accept: "text/plain"],
            parameters: [ParameterSet(["client": "ios", "v": 1], encoding: .json)],
            decoder: .none
        )
        base.configure = { $0.options.timeout = .seconds(9) }
        var search = Endpoint(.post, "/users/search", decoder: .json([User].self), base: base)
        search.query["lang"] = "fr"
        search.headers[.accept] = "application/json"
        search.parameters.append(ParameterSet(["v": 2, "name": "Ada"], encoding: .json))
        #expect(search.path == "v2/users/search")

        let stubs = TestAdapter()
        stubs.post(
            "/v1/v2/users/search",
            query: ["lang": "fr"],
            headers: [.userAgent: "App/iOS", .accept: "application/json", .contentType: "application/json"],
            body: .equals(#"{"client":"ios","name":"Ada","v":2}"#)
        ) { env, _ in
            StubResponse(body: env.request.options.timeout == .seconds(9) ? #"[{"id":1,"name":"Ada"}]"# : "[]")
        }
        let api = try api(stubs)
        #expect(try await api.send(search) == [User(id: 1, name: "Ada")])
    }

    @Test func aFullURLReplacesTheBasePath() {
        let base = Endpoint<Void>(.get, "v2", decoder: .none)
        #expect(
            Endpoint(.get, "https://other.example.com/x", decoder: .data, base: base).path
                == "https://other.example.com/x"
        )
        #expect(Endpoint(.get, "", decoder: .data, base: base).path == "v2")
        #expect(Endpoint(.get, "a", decoder: .data, base: Endpoint<Void>(.get, "v2/", decoder: .none)).path == "v2/a")
    }

    @Test func decodingSwapsOnlyTheDecoder() throws {
        let api = try api(TestAdapter())
        let text = api.post(.text("x"), to: "a").authenticated(with: .bearer("t")).decoding(.text)
        #expect(text.method == .post && text.path == "a" && text.body != nil && text.authentication != nil)
    }

    // MARK: Body providers

    @Test func formTextDataAndPropertyListProviders() async throws {
        let stubs = TestAdapter()
        stubs.post(
            "/v1/form",
            headers: [.contentType: "application/x-www-form-urlencoded"],
            body: .equals("a=1&b%5B%5D=x")
        ) { _, _ in StubResponse() }
        stubs.post("/v1/text", headers: [.contentType: "text/plain; charset=utf-8"], body: .equals("hi")) { _, _ in
            StubResponse()
        }
        stubs.post("/v1/data", headers: [.contentType: "image/png"], body: .equals(Data([1, 2]))) { _, _ in
            StubResponse()
        }
        stubs.post(
            "/v1/plist",
            headers: [.contentType: "application/x-plist"],
            body: .matching { data in
                (try? PropertyListDecoder().decode(User.self, from: data)) == User(id: 3, name: "Lin")
            }
        ) { _, _ in StubResponse() }
        let api = try api(stubs)
        try await api.send(api.post(.form(["a": "1", "b": ["x"]]), to: "form"))
        try await api.send(api.post(.text("hi"), to: "text"))
        try await api.send(api.post(.bytes(Data([1, 2]), contentType: "image/png"), to: "data"))
        try await api.send(api.post(.propertyList(User(id: 3, name: "Lin")), to: "plist"))
        #expect(stubs.calls.count == 4)
    }

    @Test func fileAndMultipartProvidersStreamFromDisk() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("faraday-\(UUID().uuidString).txt")
        try Data("on disk".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let stubs = TestAdapter()
        stubs.stub(.put, .path("/v1/raw"), headers: [.contentType: "text/plain"], body: .equals("on disk")) { env, _ in
            StubResponse(status: env.request.body.length == 7 && env.request.body.isReplayable ? .ok : .badRequest)
        }
        stubs.post(
            "/v1/upload",
            body: .matching { data in
                let text = String(decoding: data, as: UTF8.self)
                return text.contains(
                    "filename=\"\(file.lastPathComponent)\"\r\nContent-Type: text/plain\r\n\r\non disk\r\n"
                )
                    && text.contains("name=\"title\"\r\n\r\nNotes\r\n") && !text.contains("ignored")
            }
        ) { env, _ in StubResponse(body: env.request.headers.contentType ?? "") }
        let api = try api(stubs)
        try await api.send(api.put(try .file(file, contentType: "text/plain"), to: "raw"))
        var upload = api.post(
            .multipart([.file("doc", at: file, contentType: "text/plain")]),
            to: "upload",
            expecting: .text
        )
        upload.parameters = [
            ParameterSet(["title": "Notes"], encoding: .propertyList), ParameterSet(["ignored": 1], encoding: .json),
        ]
        #expect(try await api.send(upload) == "multipart/form-data")
    }

    @Test func aMissingFileFailsBeforeSending() async throws {
        let stubs = TestAdapter()
        let api = try api(stubs)
        await #expect {
            try await api.send(api.put(try .file(URL(filePath: "/nonexistent/\(UUID())")), to: "raw"))
        } throws: { error in
            (error as? FaradayError)?.code == .encodingFailed
        }
        #expect(stubs.calls.isEmpty)
    }
}
