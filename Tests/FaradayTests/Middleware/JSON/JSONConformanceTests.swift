import Foundation
import Testing

@testable import Faraday

/// The JSON reader against nst/JSONTestSuite's `test_parsing` (MIT, vendored in
/// Resources/JSONTestSuite): every `y_` text accepted, every `n_` text refused with a positioned
/// error, every `i_` text as the documented policy says (``JSONParser``).
@Suite struct JSONConformanceTests {
    static let folder = TestResources.url("JSONTestSuite/test_parsing")

    static func cases(_ prefix: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }.sorted()
    }

    private func read(_ name: String) throws -> Result<JSON, JSONSyntaxError> {
        let data = try Data(contentsOf: Self.folder.appending(path: name))
        return Result { () throws(JSONSyntaxError) in try JSONParser.parse(data) }
    }

    @Test func theSuiteIsThere() {
        #expect(Self.cases("y_").count == 95)
        #expect(Self.cases("n_").count == 188)
        #expect(Self.cases("i_").count == 35)
    }

    @Test(arguments: cases("y_"))
    func everyValidTextIsAccepted(_ name: String) throws {
        if case .failure(let error) = try read(name) { Issue.record("\(name): \(error)") }
    }

    @Test(arguments: cases("n_"))
    func everyInvalidTextIsRefusedWithAPosition(_ name: String) throws {
        guard case .failure(let error) = try read(name) else {
            Issue.record("\(name) was accepted")
            return
        }
        #expect(error.line >= 1 && error.column >= 1 && !error.reason.isEmpty)
    }

    /// The policy for what RFC 8259 leaves to the implementation: `true` accepted, `false` refused.
    /// Whole numbers beyond `Int` become `Double`s and underflow goes to zero, but a number beyond
    /// `Double`'s range is refused; lone surrogates, invalid UTF-8 and UTF-16 are refused; a UTF-8
    /// byte-order mark is skipped; 500 levels of nesting are within the limit of 512.
    static let implementationDefined: [String: Bool] = [
        "i_number_double_huge_neg_exp.json": true,
        "i_number_huge_exp.json": false,
        "i_number_neg_int_huge_exp.json": false,
        "i_number_pos_double_huge_exp.json": false,
        "i_number_real_neg_overflow.json": false,
        "i_number_real_pos_overflow.json": false,
        "i_number_real_underflow.json": true,
        "i_number_too_big_neg_int.json": true,
        "i_number_too_big_pos_int.json": true,
        "i_number_very_big_negative_int.json": true,
        "i_object_key_lone_2nd_surrogate.json": false,
        "i_string_1st_surrogate_but_2nd_missing.json": false,
        "i_string_1st_valid_surrogate_2nd_invalid.json": false,
        "i_string_UTF-16LE_with_BOM.json": false,
        "i_string_UTF-8_invalid_sequence.json": false,
        "i_string_UTF8_surrogate_U+D800.json": false,
        "i_string_incomplete_surrogate_and_escape_valid.json": false,
        "i_string_incomplete_surrogate_pair.json": false,
        "i_string_incomplete_surrogates_escape_valid.json": false,
        "i_string_invalid_lonely_surrogate.json": false,
        "i_string_invalid_surrogate.json": false,
        "i_string_invalid_utf-8.json": false,
        "i_string_inverted_surrogates_U+1D11E.json": false,
        "i_string_iso_latin_1.json": false,
        "i_string_lone_second_surrogate.json": false,
        "i_string_lone_utf8_continuation_byte.json": false,
        "i_string_not_in_unicode_range.json": false,
        "i_string_overlong_sequence_2_bytes.json": false,
        "i_string_overlong_sequence_6_bytes.json": false,
        "i_string_overlong_sequence_6_bytes_null.json": false,
        "i_string_truncated-utf-8.json": false,
        "i_string_utf16BE_no_BOM.json": false,
        "i_string_utf16LE_no_BOM.json": false,
        "i_structure_500_nested_arrays.json": true,
        "i_structure_UTF-8_BOM_empty_object.json": true,
    ]

    @Test(arguments: cases("i_"))
    func implementationDefinedTextsFollowThePolicy(_ name: String) throws {
        let accepted = if case .success = try read(name) { true } else { false }
        #expect(Self.implementationDefined[name] == accepted, "\(name)")
    }

    /// ``JSONParser/validate(_:)``, which ``DecodeJSON`` runs on every body (the value is made
    /// when first read), accepts exactly what the parser accepts and refuses the rest with the
    /// same error, on every text of the suite.
    @Test(arguments: cases("y_") + cases("n_") + cases("i_"))
    func checkingATextAgreesWithReadingIt(_ name: String) throws {
        let data = try Data(contentsOf: Self.folder.appending(path: name))
        let checked = Result { () throws(JSONSyntaxError) in try JSONParser.validate(data) }
        switch (try read(name), checked) {
        case (.success, .success): break
        case (.failure(let read), .failure(let check)): #expect(read.description == check.description, "\(name)")
        case (let read, let check): Issue.record("\(name): read \(read), checked \(check)")
        }
    }
}

/// What a user reads when a body is not JSON: where, and why.
@Suite struct JSONErrorMessageTests {
    @Test(arguments: [
        ("[1,]", "line 1, column 4 (byte 3): expected a value, found ']'"),
        (#"{"a":1,}"#, "line 1, column 8 (byte 7): expected a member name in quotes, found '}'"),
        (#"{"a":1"#, "line 1, column 7 (byte 6): expected ',' or '}', found the end of the text"),
        (#"["\uD800"]"#, "line 1, column 3 (byte 2): a UTF-16 surrogate escape without its pair"),
        ("{\n  \"a\": tru\n}", "line 2, column 11 (byte 12): expected 'true', found byte 0xa"),
        (
            String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
            "line 1, column 513 (byte 512): nesting deeper than 512 levels"
        ),
        ("[1] x", "line 1, column 5 (byte 4): more after the end of the JSON text"),
        ("[1e400]", "line 1, column 2 (byte 1): a number beyond the range of Double"),
    ])
    func anErrorNamesThePositionAndTheReason(_ text: String, _ message: String) {
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(Data(text.utf8)) }
        do {
            _ = try JSONParser.parse(Data(text.utf8))
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func decodeJSONReportsThePositionInItsError() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/x") { _, _ in StubResponse(headers: [.contentType: "application/json"], body: "[1,]") }
        let error = await #expect(throws: FaradayError.self) {
            try await makeConnection([DecodeJSON.Handler()], adapter: stubs).get("x").value
        }
        #expect(error?.code == .parsingFailed)
        #expect(
            error?.message
                == "The response body is not valid JSON: line 1, column 4 (byte 3): expected a value, found ']'"
        )
        #expect(error?.underlying is JSONSyntaxError)
        #expect(
            error?.description.hasPrefix(
                "FaradayError.parsingFailed: The response body is not valid JSON: line 1, column 4 (byte 3): expected a value, found ']' (GET https://api.example.com/v1/x)"
            ) == true,
            "\(String(describing: error))"
        )
    }

    @Test func trailingCommasAreRefusedWhateverTheDecodersSettings() throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        for text in ["[1,]", #"{"a":1,}"#, #"{"a":[1,],"b":2}"#] {
            #expect(throws: JSONSyntaxError.self) { try decoder.decodeJSONValue(from: Data(text.utf8)) }
        }
        #expect(try decoder.decodeJSONValue(from: Data(#"{"user_name":"ada"}"#.utf8))["userName"] == "ada")
    }

    @Test func jsonsDecodableConformanceReportsTheRealProblem() throws {
        // A number beyond Double inside an array: not "expected a dictionary but found an array".
        let error = #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(JSON.self, from: Data("[1, 2, 1e400]".utf8))
        }
        #expect("\(String(describing: error))".contains("Dictionary") == false, "\(String(describing: error))")
    }
}
