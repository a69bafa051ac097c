import FaradayTestSupport
import Foundation
import Testing

@testable import Faraday

/// `print`, `dump`, `debugPrint` and `String(reflecting:)` of a request, an env, a response and an
/// error never show a credential (issue 44): they go through `Redaction`'s defaults, as OkHttp's
/// `Headers.toString()` masks them.
@Suite struct SecretsInDescriptionsTests {
    static let secrets = ["SECRET-TOKEN", "SECRET-COOKIE", "SECRET-SET", "SECRET-PASS", "SECRET-QUERY", "SECRET-KEY"]

    private func request() throws -> Request {
        var request = Request(
            method: .get,
            url: try #require(
                URL(string: "https://ada:SECRET-PASS@api.example.com/v1/me?access_token=SECRET-QUERY&x=1")
            )
        )
        request.headers[.authorization] = "Bearer SECRET-TOKEN"
        request.headers[.cookie] = "sid=SECRET-COOKIE"
        request.headers[HTTPField.Name("X-Api-Key")!] = "SECRET-KEY"
        request.headers[.accept] = "application/json"
        return request
    }

    private func env() throws -> Env {
        var env = Env(request: try request())
        env.response = ResponseData(
            status: .ok,
            headers: [.setCookie: "sid=SECRET-SET; Secure", .contentType: "text/plain"]
        )
        return env
    }

    /// Every way Swift turns a value into text.
    private func texts(_ value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        var debugPrinted = ""
        debugPrint(value, to: &debugPrinted)
        return [String(describing: value), String(reflecting: value), dumped, debugPrinted, "\(value)"]
    }

    private func expectNoSecret(_ value: Any, sourceLocation: SourceLocation = #_sourceLocation) {
        for text in texts(value) {
            let leaked = Self.secrets.filter { text.contains($0) }
            #expect(leaked.isEmpty, "\(leaked) in \(text)", sourceLocation: sourceLocation)
        }
    }

    @Test func aRequestShowsNoCredential() throws {
        let request = try request()
        expectNoSecret(request)
        // What is not a secret still shows.
        #expect(texts(request).allSatisfy { $0.contains("api.example.com/v1/me") && $0.contains("application/json") })
    }

    @Test func anEnvAndItsResponseShowNoCredential() throws {
        let env = try env()
        expectNoSecret(env)
        expectNoSecret(try #require(env.response))
        #expect(String(describing: env).contains("text/plain"))
    }

    @Test func anErrorShowsNoCredential() throws {
        let env = try env()
        var response = try #require(env.response)
        response.status = .unauthorized
        let error = FaradayError(
            .unauthorized,
            "Rejected https://ada:SECRET-PASS@api.example.com/v1/me?access_token=SECRET-QUERY&x=1",
            method: .get,
            url: env.request.url,
            response: response
        )
        expectNoSecret(error)
        expectNoSecret(error as any Error)
        #expect(String(reflecting: error).contains("unauthorized"))
    }

    @Test func aBodyShowsItsKindNotItsValue() throws {
        var request = try request()
        for body in [
            RequestBody.form(["user": "ada", "password": "SECRET-PASS"]), .json(["token": "SECRET-TOKEN"]),
            .text("password=SECRET-PASS"), .bytes(Data("SECRET-KEY".utf8)),
        ] {
            request.body = body
            expectNoSecret(request)
            expectNoSecret(body)
        }
        var dumped = ""
        dump(ResponseData(status: .ok, body: Data("SECRET".utf8)), to: &dumped)
        #expect(dumped.contains("6 bytes") && !dumped.contains("83"), "no byte listed: \(dumped)")
    }

    @Test func optionsNeverShowAPrivateKey() throws {
        let key = "-----BEGIN PRIVATE KEY-----\nSECRET-KEY\n-----END PRIVATE KEY-----"
        var options = RequestOptions()
        options.tls.clientIdentity = try ClientIdentity(
            certificateChain: [try TLSCertificate(der: try TestCertificates.selfSigned().serverCertificateDER)],
            privateKey: .pem(key)
        )
        expectNoSecret(options)
        expectNoSecret(try #require(options.tls.clientIdentity))
        var request = try request()
        request.options = options
        expectNoSecret(Env(request: request))
    }

    @Test func whatAMiddlewareKeepsInTheEnvShowsItsTypeOnly() throws {
        var env = try env()
        env.response?.body = Data(#"{"access_token":"SECRET-TOKEN"}"#.utf8)
        env[DecodedJSONKey.self] = DecodedJSON(.object(["access_token": .string("SECRET-TOKEN")]))
        #expect(env.json?["access_token"]?.string == "SECRET-TOKEN")
        expectNoSecret(env)
    }

    @Test func anUnderlyingErrorIsScrubbedOfItsURL() throws {
        let url = try #require(URL(string: "https://ada:SECRET-PASS@api.example.com/?access_token=SECRET-QUERY"))
        let underlying = URLError(.timedOut, userInfo: [NSURLErrorFailingURLErrorKey: url])
        let error = FaradayError(.readTimeout, "timed out", method: .get, url: url, underlying: underlying)
        expectNoSecret(error)
    }

    @Test func statefulObjectsDumpNoSecret() throws {
        let jar = CookieJar()
        let origin = try #require(URL(string: "https://api.example.com/"))
        jar.store(setCookieHeaders: ["sid=SECRET-COOKIE; Max-Age=60"], from: origin)
        expectNoSecret(jar)
        expectNoSecret(try #require(jar.allCookies.first))
        let credential = OAuthCredential(accessToken: "SECRET-TOKEN", refreshToken: "SECRET-KEY")
        expectNoSecret(credential)
        let store = CredentialStore(credential: credential) { _ in credential }
        expectNoSecret(store)
        let connection = try Connection(
            url: "https://api.example.com",
            headers: [.authorization: "Bearer SECRET-TOKEN"]
        )
        expectNoSecret(connection)
    }

    @Test func valuesThatHoldAServersURLsShowThemRedacted() throws {
        let url = try #require(
            URL(string: "https://ada:SECRET-PASS@api.example.com/v1/me?access_token=SECRET-QUERY&x=1")
        )
        expectNoSecret(WebLink(target: url, relations: ["next"]))
        expectNoSecret(FollowRedirects.Redirect(status: 302, from: url, to: url, method: .get))
        let entry = CacheEntry(
            url: url,
            varyingRequestHeaders: ["Authorization": "Bearer SECRET-TOKEN", "Accept-Language": "en"],
            status: .ok,
            headers: [.setCookie: "sid=SECRET-SET"],
            body: ResponseBody(Data("SECRET-KEY".utf8)),
            requestDate: Date(),
            responseDate: Date()
        )
        expectNoSecret(entry)
        #expect(String(describing: entry).contains("Accept-Language"))
        var endpoint = Endpoint<Void>(.get, url.absoluteString, query: ["api_key": "SECRET-KEY"], decoder: .none)
        endpoint.headers[.authorization] = "Bearer SECRET-TOKEN"
        endpoint.body = .form(["password": "SECRET-PASS"])
        expectNoSecret(endpoint.authenticated(with: .bearer("SECRET-TOKEN")))
        let params: Params = ["q": "swift", "access_token": "SECRET-TOKEN", "user": ["password": "SECRET-PASS"]]
        expectNoSecret(params)
        #expect(String(describing: params).contains("q=swift"))
        let connection = try Connection(url: "https://api.example.com")
        expectNoSecret(
            connection.eventSource("events?access_token=SECRET-QUERY", headers: [.cookie: "sid=SECRET-COOKIE"])
        )
    }
}
