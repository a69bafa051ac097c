import Foundation
import InMemoryLogging
import Logging
import Testing

@testable import Faraday

/// No credential reaches a log line, an error message, a cURL command or a URL shown anywhere.
@Suite(.timeLimit(.minutes(1))) struct SecretsInOutputsTests {
    private func url(_ string: String) throws -> URL { try #require(URL(string: string)) }

    // MARK: Redaction's defaults

    @Test(arguments: [
        "https://e.com/?user[password]=SECRET&user[name]=ada", "https://e.com/?a[b][token]=SECRET&user[name]=ada",
        "https://e.com/?user%5Bpassword%5D=SECRET&user[name]=ada", "https://e.com/?user%5Bpassword%5D=SECRET&u=ada",
        "https://e.com/?X-Amz-Signature=SECRET&X-Amz-Credential=SECRET&u=ada",
        "https://e.com/?sig=SECRET&AWSAccessKeyId=SECRET&u=ada",
    ])
    func bracketedAndSignedURLNamesAreHidden(_ string: String) throws {
        for text in [Redaction().redacting(try url(string)), Redaction().redacting(urlText: string)] {
            #expect(!text.contains("SECRET"), "\(text)")
            #expect(text.contains("=[REDACTED]"))
            #expect(text.contains("=ada"))
        }
    }

    @Test(arguments: [
        ("https://ghp_SECRET@github.com/x", "https://[REDACTED]@github.com/x", "https://[REDACTED]@github.com/x"),
        (
            "https://ada:SECRET@e.com:8443/x?q=1", "https://[REDACTED]:[REDACTED]@e.com:8443/x?q=1",
            "https://[REDACTED]:[REDACTED]@e.com:8443/x?q=1"
        ),
        // Text from a server may hide a password behind a raw `/`: there, an `@` in the path
        // hides what comes before it; a parsed URL's user info ends at its path.
        ("https://e.com/a@b", "https://e.com/a@b", "https://[REDACTED]@b"),
    ])
    func aURLsUserInfoIsHiddenWhetherPasswordOrToken(_ string: String, _ asURL: String, _ asText: String) throws {
        #expect(Redaction().redacting(try url(string)) == asURL)
        #expect(Redaction().redacting(urlText: string) == asText)
    }

    @Test(arguments: [
        "https://e.com/cb#access_token=SECRET&state=ok", "https://e.com/cb?x=1#id_token=SECRET&state=ok",
        "https://ada:pa/SECRET@e.com/x?state=ok", "//ada:SECRET@e.com/?state=ok",
    ])
    func fragmentsAndOddUserInfoAreRedactedToo(_ text: String) {
        let redacted = Redaction().redacting(urlText: text)
        #expect(!redacted.contains("SECRET"), "\(redacted)")
        #expect(redacted.contains("state=ok"))
    }

    @Test func urlsInLocationAndRefererHeadersAreRedacted() throws {
        var request = Request(method: .get, url: try url("https://e.com/"))
        request.headers[.referer] = "https://e.com/page?token=SECRET"
        let command = request.curlCommand()
        #expect(!command.contains("SECRET") && command.contains("token=[REDACTED]"))
    }

    @Test func commonKeyHeadersAreHiddenByDefault() throws {
        var request = Request(method: .get, url: try url("https://e.com/"))
        for name in ["X-Api-Key", "X-Auth-Token", "Api-Key", "Private-Token", "X-Goog-Api-Key", "X-Amz-Security-Token"]
        {
            request.headers[try #require(HTTPField.Name(name))] = "SECRET-\(name)"
        }
        request.headers[.accept] = "text/plain"
        let command = request.curlCommand()
        #expect(!command.contains("SECRET"))
        #expect(command.contains("-H 'X-Api-Key: [REDACTED]'"))
        #expect(command.contains("-H 'Accept: text/plain'"))
    }

    // MARK: cURL

    @Test(arguments: ["@/etc/passwd", "@~/.ssh/id_rsa", "-d @x"])
    func aBodyStartingWithAtIsSentAsTextNotReadFromAFile(_ body: String) throws {
        var request = Request(method: .post, url: try url("https://e.com/a"))
        request.headers[.contentType] = "text/plain"
        request.body = .text(body)
        let command = request.curlCommand()
        #expect(command.hasSuffix("--data-raw '\(body)'"))
        #expect(!command.contains("--data-binary") && !command.contains(" -d ") && !command.contains("--data '"))
    }

    // MARK: Error messages

    @Test func redirectErrorsNameTheirTargetsRedacted() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/insecure") { _, _ in
            StubResponse(status: .found, headers: [.location: "http://ada:SECRET@api.example.com/x?token=SECRET"])
        }
        stubs.get("/v1/invalid") { _, _ in
            StubResponse(status: .found, headers: [.location: "ftp://ada:SECRET@e.com/?access_token=SECRET"])
        }
        let connection = try makeConnection([FollowRedirects.Handler()], adapter: stubs)
        for path in ["insecure", "invalid"] {
            do {
                _ = try await connection.get(path).value
                Issue.record("\(path) should fail")
            } catch {
                #expect(!error.message.contains("SECRET"), "\(error.message)")
                #expect(!"\(error)".contains("SECRET"))
                #expect(error.message.contains("[REDACTED]"))
            }
        }
    }

    @Test(arguments: ["//ada:SECRET@evil.example/?token=SECRET", "https://ada:SECRET@/?token=SECRET"])
    func urlErrorsNameThePathRedacted(_ path: String) async throws {
        let connection = try makeConnection(url: "https://user:SECRET@api.example.com/v1")
        do {
            _ = try await connection.get(path).value
            Issue.record("should fail")
        } catch {
            #expect(error.code == .invalidURL)
            #expect(!error.message.contains("SECRET"), "\(error.message)")
        }
        let error = #expect(throws: FaradayError.self) { try Connection(url: "ftp://ada:SECRET@e.com/?token=SECRET") }
        #expect(error?.message.contains("SECRET") == false, "\(error?.message ?? "")")
    }

    @Test func theLoggerRedactsURLsInsideErrorMessages() async throws {
        let logs = InMemoryLogHandler()
        let stubs = TestAdapter()
        stubs.get("/v1/go") { _, _ in
            StubResponse(status: .found, headers: [.location: "http://api.example.com/x?access_token=SECRET"])
        }
        let connection = try makeConnection(
            [HTTPLogger.Handler(logger: Logger(label: "test") { _ in logs }), FollowRedirects.Handler()],
            adapter: stubs
        )
        _ = try? await connection.get("missing?access_token=SECRET").value
        _ = try? await connection.get("go").value
        let lines = logs.entries.map { "\($0.message)" }
        #expect(lines.filter { $0.hasPrefix("✗") }.count == 2)
        #expect(!lines.joined().contains("SECRET"), "\(lines)")
    }
}
