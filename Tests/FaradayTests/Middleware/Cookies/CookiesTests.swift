import Faraday
import Foundation
import Testing

@Suite(.timeLimit(.minutes(1))) struct CookiesTests {
    private func temporaryFile() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("faraday-cookies-\(UUID().uuidString).json")
    }

    @Test func cookiesFromOneResponseGoWithTheNextRequest() async throws {
        let stubs = TestAdapter()
        stubs.post("/v1/login") { _, _ in
            StubResponse(headers: [.setCookie: "sid=abc; Path=/; HttpOnly", .init("X-Other")!: "1"], body: "ok")
        }
        stubs.get("/v1/me", headers: [.cookie: "pref=dark; sid=abc"]) { _, _ in StubResponse(body: "me") }
        let connection = try makeConnection([Cookies.Handler(jar: CookieJar())], adapter: stubs)
        _ = try await connection.post("login").value
        #expect(try await connection.get("me") { $0.headers[.cookie] = "pref=dark" }.value.response?.text == "me")
    }

    @Test func everySetCookieHeaderIsStored() async throws {
        var headers = HTTPFields()
        headers.append(HTTPField(name: .setCookie, value: "a=1"))
        headers.append(HTTPField(name: .setCookie, value: "b=2; Expires=Wed, 21 Oct 2065 07:28:00 GMT"))
        let stubs = TestAdapter()
        stubs.get("/v1/set") { [headers] _, _ in StubResponse(headers: headers) }
        let jar = CookieJar()
        _ = try await makeConnection([Cookies.Handler(jar: jar)], adapter: stubs).get("set").value
        #expect(jar.allCookies.map(\.name) == ["a", "b"])
    }

    @Test func cookiesOfAStreamedResponseAreStoredWithItsFirstFrame() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/s") { _, _ in
            StubResponse(headers: [.setCookie: "s=1"], body: ResponseBody(pieces: [Data("x".utf8), Data("y".utf8)]))
        }
        let jar = CookieJar()
        let connection = try makeConnection([Cookies.Handler(jar: jar)], adapter: stubs)
        for try await env in connection.get("s", configure: { $0.options.streaming = .chunks }).completions
        where env.phase.frameIndex == 0 {
            #expect(jar.allCookies.map(\.name) == ["s"])
        }
    }

    @Test func resetEmptiesTheJarAndALateResponseDoesNotRefillIt() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/slow") { _, _ in
            try await Task.sleep(for: .milliseconds(50))
            return StubResponse(headers: [.setCookie: "late=1"])
        }
        stubs.get("/v1/set") { _, _ in StubResponse(headers: [.setCookie: "early=1"]) }
        let jar = CookieJar()
        let connection = try makeConnection([Cookies.Handler(jar: jar)], adapter: stubs)
        _ = try await connection.get("set").value
        let response = connection.get("slow")
        _ = try await response.head  // the request has left
        connection.reset()
        _ = try await response.value
        #expect(jar.allCookies.isEmpty)
    }

    @Test func aFileJarSurvivesARestart() throws {
        let file = temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let origin = try #require(URL(string: "https://example.com/"))
        do {
            let jar = try CookieJar(file: file)
            jar.store(setCookieHeaders: ["kept=1; Max-Age=3600", "session=1"], from: origin)
        }
        let reopened = try CookieJar(file: file)
        #expect(reopened.cookieHeader(for: origin) == "kept=1")

        let withSessions = temporaryFile()
        defer { try? FileManager.default.removeItem(at: withSessions) }
        try CookieJar(file: withSessions, persistsSessionCookies: true).store(
            setCookieHeaders: ["session=1"],
            from: origin
        )
        #expect(try CookieJar(file: withSessions).cookieHeader(for: origin) == "session=1")
    }

    /// A server that sets its session on every answer does not make a file jar rewrite its file
    /// each time; a changed cookie does.
    @Test func aFileJarIsNotRewrittenForTheSameCookie() throws {
        let file = temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let origin = try #require(URL(string: "https://example.com/"))
        let jar = try CookieJar(file: file, persistsSessionCookies: true)
        jar.store(setCookieHeaders: ["session=1; Path=/"], from: origin)
        #expect(FileManager.default.fileExists(atPath: file.path))

        try FileManager.default.removeItem(at: file)
        jar.store(setCookieHeaders: ["session=1; Path=/"], from: origin)
        #expect(!FileManager.default.fileExists(atPath: file.path))

        jar.store(setCookieHeaders: ["session=2; Path=/"], from: origin)
        #expect(try CookieJar(file: file).cookieHeader(for: origin) == "session=2")

        // The same first cookie and a changed second one in one answer: rewritten, once.
        try FileManager.default.removeItem(at: file)
        jar.store(setCookieHeaders: ["session=2; Path=/", "other=1", "ignored"], from: origin)
        #expect(try CookieJar(file: file).cookieHeader(for: origin) == "session=2; other=1")
    }

    /// A save that failed is tried again with the next answer, even one that sets the same
    /// cookie again.
    @Test func aFailedSaveIsTriedAgainWithTheSameCookie() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "faraday-jar-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appending(path: "cookies.json")
        let origin = try #require(URL(string: "https://example.com/"))
        let jar = try CookieJar(file: file, persistsSessionCookies: true)
        jar.store(setCookieHeaders: ["session=1; Path=/"], from: origin)
        #expect(jar.lastSaveError?.code == .storageFailed)

        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        jar.store(setCookieHeaders: ["session=1; Path=/"], from: origin)
        #expect(jar.lastSaveError == nil)
        #expect(try CookieJar(file: file).cookieHeader(for: origin) == "session=1")
    }

    @Test(arguments: [
        "not json", #"{"cookies":[]}"#, #"{"format":"faraday-cookies","version":1,"cookies":[{"name":1}]}"#,
    ])
    func aCorruptFileIsAClearErrorAndIsLeftAlone(_ contents: String) throws {
        let file = temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(contents.utf8).write(to: file)
        #expect {
            try CookieJar(file: file)
        } throws: { error in
            guard let error = error as? FaradayError else { return false }
            return error.code == .storageFailed && error.message.contains(file.path)
        }
        #expect(try Data(contentsOf: file) == Data(contents.utf8))
    }

    @Test func anUnwritableFileIsReportedWithoutFailingTheJar() throws {
        let file = URL(filePath: "/nonexistent-\(UUID())/cookies.json")
        let jar = try CookieJar(file: file)
        jar.store(setCookieHeaders: ["a=1; Max-Age=60"], from: try #require(URL(string: "https://example.com/")))
        #expect(jar.allCookies.count == 1)
        #expect(jar.lastSaveError?.code == .storageFailed)
    }
}
