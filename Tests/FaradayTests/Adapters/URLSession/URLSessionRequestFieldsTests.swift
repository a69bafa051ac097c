import HTTPTypes
import Testing

@testable import Faraday

/// The request's fields as URLSessionAdapter hands them to `URLRequest` in one dictionary: what
/// `addValue` field by field made of them, and `Accept-Encoding: identity` unless one is named.
/// The conformance suite (`RequestShapeTests`, `WireEqualityTests`) checks what reaches the server.
@Suite struct URLSessionRequestFieldsTests {
    private func fields(_ pairs: [(String, String)]) throws -> [String: String] {
        var headers = HTTPFields()
        for (name, value) in pairs { headers.append(HTTPField(name: try #require(HTTPField.Name(name)), value: value)) }
        return URLSessionAdapter.headerFields(headers)
    }

    @Test func eachFieldIsKeptUnderItsName() throws {
        #expect(
            try fields([("Accept", "application/json"), ("Authorization", "Bearer t"), ("x-request-id", "7")])
                == [
                    "Accept": "application/json", "Authorization": "Bearer t", "x-request-id": "7",
                    "Accept-Encoding": "identity",
                ]
        )
    }

    @Test func repeatedNamesAreJoinedWithCommasUnderTheFirstSpelling() throws {
        let joined = try fields([("X-Tag", "a"), ("x-tag", "b"), ("Other", "o"), ("X-TAG", "c")])
        #expect(joined == ["X-Tag": "a,b,c", "Other": "o", "Accept-Encoding": "identity"])
    }

    @Test func cookiesAreJoinedIntoOneField() throws {
        let joined = try fields([("Cookie", "a=1"), ("Accept", "*/*"), ("Cookie", "b=2")])
        #expect(joined == ["Cookie": "a=1; b=2", "Accept": "*/*", "Accept-Encoding": "identity"])
    }

    @Test func cookiesWhateverTheirSpellingGoOutAsOneCookieField() throws {
        #expect(
            try fields([("cookie", "a=1"), ("Cookie", "b=2")]) == ["Cookie": "a=1; b=2", "Accept-Encoding": "identity"]
        )
    }

    @Test func emptyValuesAreKept() throws {
        #expect(try fields([("X-Empty", ""), ("x-empty", "")]) == ["X-Empty": ",", "Accept-Encoding": "identity"])
        // An empty Accept-Encoding still names the encodings the request accepts: no identity added.
        #expect(try fields([("Accept-Encoding", "")]) == ["Accept-Encoding": ""])
    }

    @Test func anAcceptEncodingTheRequestNamesIsKeptWhateverItsCase() throws {
        #expect(try fields([("accept-encoding", "br")]) == ["accept-encoding": "br"])
        #expect(try fields([("Accept-Encoding", "gzip"), ("accept-encoding", "br")]) == ["Accept-Encoding": "gzip,br"])
    }

    @Test func noFieldsStillAskForTheBodyAsItIs() throws {
        #expect(try fields([]) == ["Accept-Encoding": "identity"])
    }
}
