import Faraday
import HTTPTypes
import Testing

@Suite(.timeLimit(.minutes(1))) struct HeadersTests {
    @Test func basicAuthEncodesLoginAndPasswordAsUTF8() {
        var headers = HTTPFields()
        headers.auth(login: "login", pass: "pass")
        #expect(headers[.authorization] == "Basic bG9naW46cGFzcw==")
        headers.auth(login: "j\u{F6}rg", pass: "p\u{E4}ss:w")
        #expect(headers[.authorization] == "Basic asO2cmc6cMOkc3M6dw==")
    }

    @Test func tokenAuthQuotesValuesInAStableOrder() {
        var headers = HTTPFields()
        headers.auth(token: "abc", options: ["zeta": "1", "alpha": #"say "hi""#])
        #expect(headers[.authorization] == #"Token token="abc", alpha="say \"hi\"", zeta="1""#)
        headers.bearer("xyz")
        #expect(headers[values: .authorization] == ["Bearer xyz"])
    }

    @Test func acceptsAddsTypesWithoutDuplicates() {
        var headers: HTTPFields = [.accept: "text/html"]
        headers.accepts(contentTypes: ["application/json", "TEXT/HTML"])
        headers.accepts(contentTypes: ["application/json"])
        #expect(headers[.accept] == "text/html, application/json")
    }

    @Test func contentTypeAndItsParameters() {
        var headers = HTTPFields()
        headers.setContentType("multipart/form-data", parameters: ["boundary": "a b", "charset": "utf-8"])
        #expect(headers[.contentType] == #"multipart/form-data; boundary="a b"; charset=utf-8"#)
        #expect(headers.contentType == "multipart/form-data")
        #expect(headers.contentTypeParameters == ["boundary": "a b", "charset": "utf-8"])
        let json: HTTPFields = [.contentType: "Application/JSON ; charset=UTF-8"]
        #expect(json.contentType == "application/json")
    }

    @Test func namesAreCaseInsensitiveAndValuesMultiple() {
        var headers = HTTPFields()
        headers.append(HTTPField(name: HTTPField.Name("X-Tag")!, value: "a"))
        headers.append(HTTPField(name: HTTPField.Name("x-tag")!, value: "b"))
        #expect(headers[values: HTTPField.Name("X-TAG")!] == ["a", "b"])
    }

    @Test func requestHeadersOverrideConnectionHeadersByName() async throws {
        let stubs = TestAdapter()
        stubs.stub(.get, .path("/x"), response: StubResponse())
        let tag = HTTPField.Name("X-Tag")!
        var defaults = HTTPFields()
        defaults[values: tag] = ["c1", "c2"]
        defaults[.accept] = "text/plain"
        let connection = try Connection(url: "https://api.example.com", headers: defaults) { $0.adapter = stubs }
        _ = try await connection.get("x", headers: [tag: "r"]).value
        let sent = try #require(stubs.calls.first?.headers)
        #expect(sent[values: tag] == ["r"])
        #expect(sent[.accept] == "text/plain")
        #expect(sent[.userAgent] == Connection.defaultUserAgent)
    }

    @Test func headerValuesCannotSmuggleNewLines() {
        var headers = HTTPFields()
        headers.bearer("abc\r\nX-Injected: 1")
        #expect(headers[.authorization]?.contains("\r\n") == false)
        #expect(headers[HTTPField.Name("X-Injected")!] == nil)
    }

    @Test func headerTextHelpersWorkOnBytesAndLeaveNonASCIIAlone() {
        #expect(" \t text/html ; q=1\t ".trimmingHTTPWhitespace == "text/html ; q=1")
        #expect(" \t ".trimmingHTTPWhitespace.isEmpty)
        #expect("\u{00A0}x\u{00A0}".trimmingHTTPWhitespace == "\u{00A0}x\u{00A0}")
        #expect("Application/JSON".lowercasedASCII == "application/json")
        #expect("ÉCOLE.Example".lowercasedASCII == "École.example")
        #expect("ÉCOLE.Example".lowercasedCheaply == "école.example")
        #expect("API.Example.COM".lowercasedCheaply == "api.example.com")
        #expect("Application/JSON"[...].equalsIgnoringASCIICase("application/json"))
        #expect(!"application/json"[...].equalsIgnoringASCIICase("application/jsonx"))
        // Bytes, not canonical equivalence; small (inline) and large strings alike.
        #expect("caf\u{E9}" == "cafe\u{301}" && !"caf\u{E9}".hasSameUTF8(as: "cafe\u{301}"))
        // Canonically equal and as long in bytes: only a comparison of the bytes tells them apart.
        #expect("\u{1E0B}\u{323}" == "\u{1E0D}\u{307}" && !"\u{1E0B}\u{323}".hasSameUTF8(as: "\u{1E0D}\u{307}"))
        #expect("session=abc; Path=/; HttpOnly".hasSameUTF8(as: "session=abc; Path=/; " + "HttpOnly"))
        #expect(!"session=abc; Path=/; HttpOnly".hasSameUTF8(as: "session=abd; Path=/; HttpOnly"))
        #expect("".hasSameUTF8(as: "") && "ab".hasSameUTF8(as: "ab") && !"ab".hasSameUTF8(as: "abc"))
    }

    @Test func acceptsKeepsOneExistingHeaderAsItIsWhenNothingIsAdded() {
        var headers = HTTPFields()
        headers.accepts(contentTypes: ["application/json"])
        #expect(headers[.accept] == "application/json")
        headers[.accept] = "text/plain,Application/JSON"
        headers.accepts(contentTypes: ["application/json"])
        #expect(headers[.accept] == "text/plain,Application/JSON")
        headers.accepts(contentTypes: ["text/csv"])
        #expect(headers[.accept] == "text/plain, Application/JSON, text/csv")
    }

    @Test func cookieFieldsAreJoinedIntoOneForHTTP1() {
        var headers = HTTPFields()
        headers[.accept] = "*/*"
        headers[.cookie] = "a=1; b=2"  // HTTPFields keeps these as two fields
        headers.append(HTTPField(name: .cookie, value: "c=3"))
        headers[.userAgent] = "test"
        var sent: [String] = []
        headers.forEachJoiningCookies { sent.append("\($0.name): \($0.value)") }
        #expect(sent == ["Accept: */*", "Cookie: a=1; b=2; c=3", "User-Agent: test"])
    }

    @Test func aLiteralNameReadsJoinedAndSetsEveryFieldOfThatName() {
        var headers: HTTPFields = [.accept: "text/html", .accept: "application/json", .userAgent: "test"]
        #expect(headers["accept"] == "text/html, application/json")
        #expect(headers["X-Missing"] == nil)
        headers["Accept"] = "*/*"
        #expect(headers[values: .accept] == ["*/*"])
        headers["X-Client-Name"] = "my-app"
        #expect(headers[.named("x-client-name")] == "my-app")
        headers["accept"] = nil
        #expect(headers.map(\.name) == [.userAgent, .named("X-Client-Name")])
        // Joined as HTTPTypes joins them: cookies with "; ".
        headers[values: .cookie] = ["a=1", "b=2"]
        #expect(headers["Cookie"] == "a=1; b=2")
    }

    @Test func aLiteralThatIsNoFieldNameStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            var headers = HTTPFields()
            headers["X Client"] = "a space is not allowed in a name"
        }
    }
}
