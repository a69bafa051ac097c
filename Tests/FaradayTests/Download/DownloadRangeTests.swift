import Foundation
import HTTPTypes
import Testing

@testable import Faraday

/// The pieces of a download's resume decision: `Content-Range` and the `If-Range` validator.
@Suite struct DownloadRangeTests {
    @Test(
        arguments: [
            ("bytes 0-99/100", 0, 99, Int64?(100)), ("bytes 500-999/1000", 500, 999, 1000),
            ("bytes 5-9/*", 5, 9, nil),
        ] as [(String, Int64, Int64, Int64?)]
    )
    func validContentRanges(_ field: String, _ first: Int64, _ last: Int64, _ complete: Int64?) throws {
        let range = try #require(ContentRange(field))
        #expect(range.first == first && range.last == last && range.completeLength == complete)
    }

    @Test(arguments: [
        "", "bytes", "bytes */100", "bytes 9-5/100", "bytes 0-99/99", "bytes 0-99", "items 0-9/10",
        "bytes -5-9/10", "bytes +5-9/10", "bytes 0-9/ten", "bytes 99999999999999999999-1/2",
    ])
    func invalidContentRanges(_ field: String) {
        #expect(ContentRange(field) == nil)
    }

    @Test(
        arguments: [
            ([("etag", #""v1""#)], #""v1""#),
            ([("etag", #"W/"v1""#)], nil),
            ([("etag", #""v1""#), ("content-encoding", "gzip")], nil),
            ([("etag", #""v1""#), ("content-encoding", "identity")], #""v1""#),
            (
                [("last-modified", "Wed, 21 Oct 2015 07:28:00 GMT"), ("date", "Wed, 21 Oct 2015 07:28:01 GMT")],
                "Wed, 21 Oct 2015 07:28:00 GMT"
            ),
            // Modified in the second the response was sent: a weak date (RFC 9110 §8.8.2.2).
            ([("last-modified", "Wed, 21 Oct 2015 07:28:00 GMT"), ("date", "Wed, 21 Oct 2015 07:28:00 GMT")], nil),
            ([("last-modified", "Wed, 21 Oct 2015 07:28:00 GMT")], nil),
            ([("last-modified", "yesterday"), ("date", "Wed, 21 Oct 2015 07:28:01 GMT")], nil),
            ([], nil),
        ] as [([(String, String)], String?)]
    )
    func theIfRangeValidator(_ fields: [(String, String)], _ expected: String?) {
        var headers = HTTPFields()
        for (name, value) in fields { headers.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        #expect(FileDownload.validator(of: headers) == expected)
    }

    /// Issue 45: `download` takes its parameters in the order of every verb, then its own.
    @Test func aDownloadTakesParamsAndHeadersInTheOrderOfEveryVerb() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/file") { env, _ in
            StubResponse(body: "\(env.request.url.query ?? "") \(env.request.headers[.authorization] ?? "")")
        }
        let connection = try makeConnection(adapter: stubs)
        let file = FileManager.default.temporaryDirectory.appending(path: "faraday-order-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let env = try await connection.download(
            "file",
            params: ["v": "2"],
            headers: [.authorization: "Bearer t"],
            to: file,
            resumeAttempts: 0
        ).value
        #expect(env.downloadedFile?.url == file)
        #expect(try String(contentsOf: file, encoding: .utf8) == "v=2 Bearer t")
    }
}
