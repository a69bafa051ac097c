import Faraday
import Foundation
import Testing

@Suite struct ParameterSetTests {
    private func post(
        _ sets: [ParameterSet],
        body: RequestBody = .empty,
        url: String = "https://api.example.com/x"
    ) throws -> Request {
        var request = Request(method: .post, url: try #require(URL(string: url)), body: body)
        try request.apply(sets)
        return request
    }

    private func json(_ request: Request) throws -> JSON {
        try JSONDecoder().decode(JSON.self, from: try request.body.bytes)
    }

    @Test func urlSetsMergeIntoTheQueryWithLaterKeysWinning() throws {
        let request = try post(
            [
                ParameterSet(["page": 1, "q": "swift"], encoding: .url),
                ParameterSet(["page": 2, "flag": true, "none": nil], encoding: .url),
            ],
            url: "https://api.example.com/x?kept=yes&q=old"
        )
        #expect(request.url.query == "kept=yes&page=2&q=swift&flag=true&none=")
        #expect(request.body.isEmpty)
    }

    @Test func jsonSetsMergeIntoOneBody() throws {
        let request = try post([
            ParameterSet(["name": "John", "age": 4], encoding: .json),
            ParameterSet(["age": 5, "dob": "12/12/12"], encoding: .json),
        ])
        #expect(try json(request) == ["name": "John", "age": 5, "dob": "12/12/12"])
        #expect(request.headers[.contentType] == "application/json")
    }

    @Test func aRequestsSetsOverrideItsBasesSets() throws {
        let base = [
            ParameterSet(["client": "ios", "v": 1], encoding: .json), ParameterSet(["lang": "en"], encoding: .url),
        ]
        let own = [ParameterSet(["v": 2], encoding: .json), ParameterSet(["lang": "fr"], encoding: .url)]
        let request = try post(base + own)
        #expect(try json(request) == ["client": "ios", "v": 2])
        #expect(request.url.query == "lang=fr")
    }

    @Test func jsonAndPropertyListDoNotMixAndTheLastWins() throws {
        let plistLast = try post([
            ParameterSet(["a": 1], encoding: .json), ParameterSet(["b": 2], encoding: .propertyList),
        ])
        #expect(plistLast.headers[.contentType] == "application/x-plist")
        let decoded = try PropertyListDecoder().decode([String: Int].self, from: try plistLast.body.bytes)
        #expect(decoded == ["b": 2])

        let jsonLast = try post([
            ParameterSet(["b": 2], encoding: .propertyList), ParameterSet(["a": 1], encoding: .json),
        ])
        #expect(try json(jsonLast) == ["a": 1])
    }

    @Test func aFileUploadIgnoresJSONAndGetsPropertyListParametersAsParts() async throws {
        let form = MultipartForm(parts: [.data("file", Data("x".utf8), filename: "x.txt")], boundary: "B")
        let request = try post(
            [
                ParameterSet(["ignored": true], encoding: .json),
                ParameterSet(["title": "Report", "pages": 3], encoding: .propertyList),
                ParameterSet(["id": 9], encoding: .url),
            ],
            body: .multipart(form)
        )
        let sent = try #require(request.body.value as? MultipartForm)
        #expect(sent.parts.map(\.name) == ["file", "title", "pages"])
        let text = String(decoding: try await sent.encoded().collect(upTo: 1 << 16), as: UTF8.self)
        #expect(text.contains("name=\"title\"\r\n\r\nReport\r\n"))
        #expect(text.contains("name=\"pages\"\r\n\r\n3\r\n"))
        #expect(!text.contains("ignored"))
        #expect(request.url.query == "id=9")
    }

    @Test func aDataUploadIgnoresBothBodyEncodings() throws {
        let request = try post(
            [
                ParameterSet(["a": 1], encoding: .json), ParameterSet(["b": 2], encoding: .propertyList),
                ParameterSet(["c": 3], encoding: .url),
            ],
            body: .bytes(Data("raw".utf8))
        )
        #expect(try request.body.bytes == Data("raw".utf8))
        #expect(request.headers[.contentType] == nil)
        #expect(request.url.query == "c=3")
    }

    @Test func customEncodingsRunLastWithTheirMergedParameters() throws {
        let csv = ParameterSet.Encoding.custom("csv") { request, set in
            let line = set.names.map { "\($0)=\(set[$0]?.string ?? set[$0]?.description ?? "")" }.joined(separator: ",")
            request.body = .text(line)
            request.headers[.contentType] = "text/csv"
        }
        let request = try post([
            ParameterSet(["a": 1], encoding: csv), ParameterSet(["json": true], encoding: .json),
            ParameterSet(["b": "two", "a": 3], encoding: csv),
        ])
        #expect(try request.body.bytes == Data("a=3,b=two".utf8))
        #expect(request.headers[.contentType] == "text/csv")
    }

    @Test func aThrowingCustomEncodingIsAnEncodingError() {
        struct Refused: Error {}
        let failing = ParameterSet.Encoding.custom("refuse") { _, _ in throw Refused() }
        #expect {
            try post([ParameterSet(["a": 1], encoding: failing)])
        } throws: { error in
            guard let error = error as? FaradayError else { return false }
            return error.code == .encodingFailed && error.underlying is Refused && error.method == .post
        }
    }

    @Test func aNullInAPropertyListReadsBackAsNil() throws {
        struct Decoded: Decodable {
            let a: Int?
            let b: Int
        }
        let request = try post([ParameterSet(["a": nil, "b": 1], encoding: .propertyList)])
        let decoded = try PropertyListDecoder().decode(Decoded.self, from: try request.body.bytes)
        #expect(decoded.a == nil && decoded.b == 1)
    }

    @Test func emptySetsAddNothing() throws {
        let request = try post([ParameterSet(encoding: .json), ParameterSet(encoding: .url)])
        #expect(request.body.isEmpty)
        #expect(request.url.query == nil)
    }
}
