import FaradayTestSupport
import Foundation
import Testing

@testable import Faraday

/// `decodeJSONValue` reads JSON with Faraday's own parser, the authority: what it returns for a
/// valid document must be exactly what `JSONDecoder` would, and what RFC 8259 refuses it refuses
/// with a positioned `JSONSyntaxError`, even where Linux's `JSONDecoder` is lenient.
@Suite(.timeLimit(.minutes(1))) struct JSONParserTests {
    static let documents = [
        #"{"id":1,"name":"widget"}"#, "[]", "{}", "null", "true", "false", "0", "-0", "42", "-17",
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "12345678901234567890123",
        "1.5", "-0.25", "1e3", "1E-3", "2.5e+10", "0.1", " \t\r\n[1, 2 ,3]\n ",
        #""plain""#, #""escapes \" \\ \/ \b \f \n \r \t""#, #""\u00e9\u4e2d\ud83d\ude00""#, #""é中😀""#,
        #"{"nested":{"list":[1,[2,[3,{"deep":null}]]],"empty":"","unicode":"\u0000"}}"#,
        #"{"dup":1,"dup":2}"#, #"[1.0, 100, 1e2]"#,
    ]

    static let invalid = [
        "", " ", "{", "}", "[,1]", #"{"a" 1}"#, "{a:1}", "[01]", "[1.]", "[.5]", "[1e]",
        "[+1]", "[-]", "tru", "nul", "[true false]", #""unterminated"#, "\"tab\tinside\"", #""\x""#,
        #""\u12""#, "[1] 2", "NaN", "[Infinity]", "1e400", #"{"a":1}}"#,
    ]

    /// Not JSON, though Linux's JSONDecoder reads them: refused.
    static let lenient = ["[1,]", #"{"a":1,}"#, "[1,2,]"]

    @Test(arguments: documents)
    func aValidDocumentReadsAsJSONDecoderReadsIt(_ text: String) throws {
        let data = Data(text.utf8)
        let expected = try JSONDecoder().decode(JSON.self, from: data)
        #expect(try JSONDecoder().decodeJSONValue(from: data) == expected)
    }

    @Test(arguments: invalid + lenient)
    func anInvalidDocumentFailsWithAPositionedError(_ text: String) {
        #expect(throws: JSONSyntaxError.self) { try JSONDecoder().decodeJSONValue(from: Data(text.utf8)) }
    }

    @Test func numbersKeepTheirKind() throws {
        let json = try JSONDecoder().decodeJSONValue(from: Data("[1, -0, 1.5, 1e2, 9223372036854775808, -12]".utf8))
        guard case .array(let values) = json else { throw Failure("not an array") }
        #expect(values.count == 6)
        if case .int(1) = values[0] {} else { Issue.record("1 is \(values[0])") }
        if case .int(0) = values[1] {} else { Issue.record("-0 is \(values[1])") }
        if case .double(1.5) = values[2] {} else { Issue.record("1.5 is \(values[2])") }
        if case .double(100) = values[3] {} else { Issue.record("1e2 is \(values[3])") }
        if case .double(9_223_372_036_854_775_808) = values[4] {} else { Issue.record("2^63 is \(values[4])") }
        if case .int(-12) = values[5] {} else { Issue.record("-12 is \(values[5])") }
    }

    @Test func escapesAndSurrogatePairsDecode() throws {
        let json = try JSONDecoder().decodeJSONValue(from: Data(#"["\u0041\u00e9\ud83d\ude00", "a\nb"]"#.utf8))
        #expect(json == ["Aé😀", "a\nb"])
    }

    @Test func bytesThatAreNotUTF8AreRefused() {
        let data = Data([UInt8(ascii: "\""), 0xC3, 0x28, UInt8(ascii: "\"")])
        #expect(throws: (any Error).self) { try JSONDecoder().decodeJSONValue(from: data) }
    }

    @Test func nestingIsLimitedAsJSONDecoderLimitsIt() throws {
        let allowed = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(
            try JSONDecoder().decodeJSONValue(from: Data(allowed.utf8))
                == JSONDecoder().decode(JSON.self, from: Data(allowed.utf8))
        )
        let tooDeep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: (any Error).self) { try JSONDecoder().decodeJSONValue(from: Data(tooDeep.utf8)) }
    }

    @Test func aDecoderWithAKeyStrategyIsHonoured() throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let data = Data(#"{"user_name":"ada"}"#.utf8)
        #expect(try decoder.decodeJSONValue(from: data) == decoder.decode(JSON.self, from: data))
    }

    /// Mutated documents: whatever the parser accepts, `JSONDecoder` accepts with the same value
    /// (the decoder also accepts what RFC 8259 does not, such as trailing commas); and checking a
    /// document (``JSONParser/validate(_:)``) gives what reading it gives.
    @Test func mutatedDocumentsNeverDisagreeWithJSONDecoder() {
        var generator = SplitMix64(seed: 0x5EED)
        let alphabet = Array(#"{}[]",:0123456789-+.eE\ntrufalsn \u"#.utf8) + [0x00, 0xC3, 0xFF]
        for round in 0..<3_000 {
            var bytes = Array(Self.documents[round % Self.documents.count].utf8)
            for _ in 0...(generator.next() % 3) {
                let position = Int(generator.next() % UInt64(bytes.count + 1))
                switch generator.next() % 3 {
                case 0 where position < bytes.count: bytes.remove(at: position)
                case 1: bytes.insert(alphabet[Int(generator.next() % UInt64(alphabet.count))], at: position)
                default:
                    if position < bytes.count {
                        bytes[position] = alphabet[Int(generator.next() % UInt64(alphabet.count))]
                    }
                }
            }
            let data = Data(bytes)
            let fast = try? JSONDecoder().decodeJSONValue(from: data)
            let reference = try? JSONDecoder().decode(JSON.self, from: data)
            let text = String(decoding: bytes, as: UTF8.self).debugDescription
            if fast != nil { #expect(fast == reference, "\(text)") }
            // Checking without making the value agrees with reading it, error for error.
            var (readError, checkError): (String?, String?) = (nil, nil)
            do { _ = try JSONParser.parse(data) } catch { readError = error.description }
            do { try JSONParser.validate(data) } catch { checkError = error.description }
            #expect(readError == checkError, "\(text)")
        }
    }

    /// Strings are read eight bytes at a time while no byte may end or change a plain ASCII run:
    /// a quote, an escape, a control character, a non-ASCII or invalid byte is found wherever it
    /// falls in a word (at every offset of strings up to 40 bytes), by reading and by checking.
    @Test func aStopByteIsFoundAtEveryPlaceOfALongString() {
        // What goes in, and what comes of it: the string's value, or the offset of the error.
        let cases: [(bytes: [UInt8], value: String?, errorOffset: ((_ position: Int) -> Int)?)] = [
            (Array(#"\n"#.utf8), "\n", nil),
            ([0x7F], "\u{7F}", nil),
            ([0xC3, 0xA9], "é", nil),
            ([0x20], " ", nil),
            ([0x01], nil, { 1 + $0 }),  // the control character
            ([0x1F], nil, { 1 + $0 }),
            ([0xFF], nil, { _ in 1 }),  // not UTF-8: the string, from its first byte
            ([0x80], nil, { _ in 1 }),
            ([UInt8(ascii: "\"")], nil, { 2 + $0 }),  // the string ends early: what follows is extra
        ]
        for length in 0..<40 {
            for position in 0...length {
                for (inserted, value, errorOffset) in cases {
                    var bytes = Array(repeating: UInt8(ascii: "a"), count: length)
                    bytes.insert(contentsOf: inserted, at: position)
                    let data = Data([UInt8(ascii: "\"")] + bytes + [UInt8(ascii: "\"")])
                    let expected = value.map {
                        JSON.string(
                            String(repeating: "a", count: position) + $0
                                + String(repeating: "a", count: length - position)
                        )
                    }
                    var (read, readOffset, checkOffset): (JSON?, Int?, Int?) = (nil, nil, nil)
                    do { read = try JSONParser.parse(data) } catch { readOffset = error.offset }
                    do { try JSONParser.validate(data) } catch { checkOffset = error.offset }
                    let place = "\(inserted) at \(position) of \(length)"
                    #expect(read == expected, "\(place)")
                    #expect(readOffset == errorOffset?(position), "\(place)")
                    #expect(checkOffset == readOffset, "\(place)")
                }
            }
        }
    }

    /// A number without an exponent is checked without making it when it has at most 300
    /// characters (finite for certain): the checks agree with reading it on both sides of the
    /// largest `Double`, 309 digits.
    @Test(arguments: [1, 299, 300, 301, 308, 309, 310, 400])
    func longNumbersAreCheckedAsTheyAreRead(_ digits: Int) {
        let nines = String(repeating: "9", count: digits)
        for text in [nines, "-" + nines, nines + ".5", "0." + nines, nines + "e0"] {
            let data = Data(text.utf8)
            var (read, readError, checkError): (JSON?, String?, String?) = (nil, nil, nil)
            do { read = try JSONParser.parse(data) } catch { readError = error.description }
            do { try JSONParser.validate(data) } catch { checkError = error.description }
            #expect(checkError == readError, "\(digits) digits: \(text.prefix(12))")
            // Finite up to 308 digits before the point, out of range from 309.
            let integerDigits = text.hasPrefix("0.") ? 1 : digits
            #expect((read != nil) == (integerDigits <= 308), "\(digits) digits: \(text.prefix(12))")
        }
    }

    /// A short number with an exponent is made even when only checked: out of range is found.
    @Test(arguments: ["1e400", "-1e999", "1E+309", "1e-400", "1e308", "0.5e1"])
    func shortNumbersWithAnExponentAreCheckedAsTheyAreRead(_ text: String) {
        var (readError, checkError): (String?, String?) = (nil, nil)
        do { _ = try JSONParser.parse(Data(text.utf8)) } catch { readError = error.description }
        do { try JSONParser.validate(Data(text.utf8)) } catch { checkError = error.description }
        #expect(checkError == readError)
        #expect((readError != nil) == ["1e400", "-1e999", "1E+309"].contains(text))
    }

    struct Failure: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }
}
