import Faraday
import FaradayTestSupport
import Foundation
import Testing

/// The original Swift Faraday's README (github.com/royratcliffe/Faraday), each line as it was
/// written, `try` added where a call throws, against the in-process server.
@Suite(.timeLimit(.minutes(1))) struct SeedCompatibilityTests {
    /// The final completion of a response, by the seed's `onComplete`.
    private func final(_ response: Response) async -> Env {
        await withCheckedContinuation { continuation in
            _ = response.onComplete { env in
                if env.isFinal { continuation.resume(returning: env) }
            }
        }
    }

    private func echo(_ env: Env) throws -> Echo {
        try JSONDecoder().decode(Echo.self, from: try #require(env.response?.body))
    }

    /// The seed's connection: base URL (with the trailing slash it insisted on), JSON both ways,
    /// the logger, the URLSession adapter, all by `use(handler:)`.
    private func seedConnection(_ server: TestServer, recorder: Recorder? = nil) throws -> Connection {
        let connection = Connection()
        connection.url = URL(string: server.baseURL.absoluteString + "/echo/")
        try connection.use(handler: EncodeJSON.Handler())
        try connection.use(handler: DecodeJSON.Handler())
        try connection.use(handler: Logger.Handler())
        if let recorder {
            try connection.use(handler: Recording.Handler(name: "outer", recorder: recorder))
            try connection.use(handler: Recording.Handler(name: "inner", recorder: recorder))
        }
        try connection.use(handler: URLSessionAdapter.Handler())
        return connection
    }

    @Test func usingAConnectionGetsThePathUnderTheBaseURL() async throws {
        let server = try await TestServer.start()
        let connection = try seedConnection(server)
        let env = await final(
            connection.get(path: "path/to/resource").onComplete { env in
                guard let response = env.response else { return }
                // Handle the unwrapped response. It contains the response status,
                // response headers and response body.
                _ = response
            }
        )
        #expect(try echo(env).path == "/echo/path/to/resource")
        #expect(env.status?.code == 200)
        try await server.shutdown()
    }

    @Test func completionsRunInReverseStackOrder() async throws {
        let server = try await TestServer.start()
        let recorder = Recorder()
        let connection = try seedConnection(server, recorder: recorder)
        _ = await final(connection.get(path: "ping"))
        let completions = recorder.log.filter { $0.contains("complete") }
        #expect(completions.first?.hasPrefix("inner.") == true && completions.last?.hasPrefix("outer.") == true)
        #expect(recorder.log.first == "outer.request")
        try await server.shutdown()
    }

    @Test func queryValuesAreWrittenLiterallyAndRepeated() async throws {
        let server = try await TestServer.start()
        let connection = try seedConnection(server)
        let response = connection.post { request in
            request.setQuery(values: ["world"], forName: "hello")
            // Do other things to configure the request, e.g. adjust headers, add
            // authentication.
            request.setQuery(values: ["1", "2"], forName: "a")
        }
        _ = response.onComplete { env in
            guard let response = env.response else { return }
            let body = response.body
            _ = body
        }
        let env = await final(response)
        #expect(try echo(env).uri == "/echo/?hello=world&a=1&a=2")
        // Whatever the params encoder, and a name set again replaces its values.
        let flat = try await connection.get { request in
            request.options.paramsEncoder = FlatParamsEncoder()
            request.setQuery(values: ["x y", "é&"], forName: "q[]")
            request.setQuery(values: ["1", "2"], forName: "a")
            request.setQuery(values: ["3"], forName: "a")
        }.value
        #expect(try echo(flat).uri == "/echo/?q%5B%5D=x+y&q%5B%5D=%C3%A9%26&a=3")
        try await server.shutdown()
    }

    @Test func authorisationAPathAndADictionaryBody() async throws {
        let server = try await TestServer.start()
        let connection = try seedConnection(server)
        let response = connection.get { request in
            request.path = "path/to/resource"
            request.body = ["ping": "pong"]
            _ = request.headers.auth(login: "login", pass: "pass")
            // The headers for this request will now include the following basic authorisation.
            // Authorization: Basic bG9naW46cGFzcw==
        }
        // The seed's README sends that body with GET: URLSession cannot, and says so before
        // sending anything (AsyncHTTPClientAdapter sends it). The seed's own test used POST.
        #expect(await final(response).error?.code == .unsupportedOption)
        let sent = try echo(
            await final(
                connection.post { request in
                    request.path = "path/to/resource"
                    request.body = ["ping": "pong"]
                    _ = request.headers.auth(login: "login", pass: "pass")
                }
            )
        )
        #expect(sent.method == "POST")
        #expect(sent.path == "/echo/path/to/resource")
        #expect(sent.value("authorization") == "Basic bG9naW46cGFzcw==")
        #expect(sent.value("content-type") == "application/json")
        #expect(try JSONDecoder().decode([String: String].self, from: Data(sent.body.utf8)) == ["ping": "pong"])

        let token = try echo(
            await final(
                connection.get { request in
                    _ = request.headers.auth(token: "abcdef", options: ["foo": "bar"])
                }
            )
        )
        #expect(token.value("authorization") == #"Token token="abcdef", foo="bar""#)
        // Connection headers are every request's default.
        connection.headers.auth(login: "login", pass: "pass")
        #expect(try echo(await final(connection.get(path: "x"))).value("authorization") == "Basic bG9naW46cGFzcw==")
        try await server.shutdown()
    }

    @Test func aPathThatMakesNoURLFailsTheCall() async throws {
        let connection = Connection(url: URL(string: "https://api.example.com/v1/"))
        let error = await #expect(throws: FaradayError.self) {
            try await connection.get { $0.path = "//evil.example/x" }.value
        }
        #expect(error?.code == .invalidURL)
        var request = try connection.makeRequest(method: .get, "users/1?page=2")
        #expect(request.path == "users/1")
        request.path = "orders"
        #expect(request.url.absoluteString == "https://api.example.com/v1/orders?page=2")
    }
}
