import Faraday
import FaradayTestSupport
import Foundation
import HTTPTypes
import Testing

/// Text in its declared charset: the Encoding Standard's labels, its single-byte tables held
/// against Python's codecs, the byte-order mark's precedence, and the bad paths.
@Suite struct CharsetTests {
    private func response(_ bytes: [UInt8], contentType: String?) -> ResponseData {
        var headers = HTTPFields()
        if let contentType { headers[.contentType] = contentType }
        return ResponseData(status: .ok, headers: headers, body: Data(bytes))
    }

    @Test(arguments: [
        ("latin1", "windows-1252"), ("ISO-8859-1", "windows-1252"), ("ascii", "windows-1252"),
        ("us-ascii", "windows-1252"), (" Windows-1252 ", "windows-1252"), ("utf8", "UTF-8"),
        ("unicode-1-1-utf-8", "UTF-8"), ("sjis", "Shift_JIS"), ("x-sjis", "Shift_JIS"), ("koi8-r", "KOI8-R"),
        ("cp1251", "windows-1251"), ("iso-8859-8-i", "ISO-8859-8-I"), ("gb2312", "GBK"), ("utf-16", "UTF-16LE"),
        ("iso-2022-kr", "replacement"), ("iso8859-15", "ISO-8859-15"),
    ])
    func labelsNameTheirEncodings(_ label: String, _ name: String) throws {
        #expect(try #require(Charset(label: label)).name == name)
    }

    @Test func aLabelOutsideTheStandardNamesNothing() {
        #expect(Charset(label: "utf-7") == nil)
        #expect(Charset(label: "") == nil)
        #expect(Charset(label: "latin-1") == nil)
    }

    /// Each sample's bytes, written by Python's codecs, decode to its text and back.
    @Test(arguments: TextRoutes.samples.map(\.label))
    func samplesDecodeAndEncodeAsPythonsCodecsDo(_ label: String) throws {
        let sample = try #require(TextRoutes.samples.first { $0.label == label })
        let bytes = TextRoutes.bytes(hex: sample.hex)
        let response = response(bytes, contentType: "text/plain; charset=\(label)")
        let charset = try #require(Charset(label: label))
        guard !Self.foundationLacks.contains(label) else {
            #expect(response.text == nil)
            #expect(throws: FaradayError.self) { try response.decodedText() }
            #expect(throws: FaradayError.self) { try charset.encode(sample.text) }
            return
        }
        #expect(try response.decodedText() == sample.text)
        #expect(response.text == sample.text)
        #expect(Array(try charset.encode(sample.text)) == bytes)
    }

    /// The encodings this platform's Foundation can neither decode nor write (the Charset
    /// documentation lists them).
    #if os(Linux)
    static let foundationLacks: Set<String> = ["euc-jp"]
    #else
    static let foundationLacks: Set<String> = []
    #endif

    @Test func anEncodingFoundationLacksIsUnsupportedNotInvalid() {
        for label in Self.foundationLacks {
            let response = response([0x41], contentType: "text/plain; charset=\(label)")
            do {
                _ = try response.decodedText()
                Issue.record("\(label) decoded")
            } catch {
                #expect(error.code == .unsupportedCharset)
            }
        }
    }

    /// Every byte of every single-byte table decodes to its code point and encodes back.
    @Test func everySingleByteTableRoundTrips() throws {
        let labels = [
            "ibm866", "iso-8859-2", "iso-8859-3", "iso-8859-4", "iso-8859-5", "iso-8859-6", "iso-8859-7",
            "iso-8859-8", "iso-8859-8-i", "iso-8859-10", "iso-8859-13", "iso-8859-14", "iso-8859-15", "iso-8859-16",
            "koi8-r", "koi8-u", "macintosh", "windows-874", "windows-1250", "windows-1251", "windows-1252",
            "windows-1253", "windows-1254", "windows-1255", "windows-1256", "windows-1257", "windows-1258",
            "x-mac-cyrillic",
        ]
        var mapped = 0
        for label in labels {
            let charset = try #require(Charset(label: label))
            for byte in UInt8(0x80)...UInt8(0xFF) {
                guard let text = try? charset.decode(Data([byte])) else { continue }
                #expect(text.unicodeScalars.count == 1, "\(label) 0x\(String(byte, radix: 16))")
                #expect(try charset.encode(text) == Data([byte]), "\(label) 0x\(String(byte, radix: 16))")
                mapped += 1
            }
            #expect(try charset.decode(Data("plain ASCII".utf8)) == "plain ASCII")
        }
        #expect(mapped > 27 * 120, "the tables map nearly every byte")
    }

    @Test func windows1252ReadsTheC1BytesAsBrowsersDo() throws {
        // 0x80 is €, and 0x81 (which windows-1252 leaves undefined) is U+0081, as the standard says.
        #expect(try Charset.windows1252.decode(Data([0x80, 0x81, 0x9F])) == "€\u{81}Ÿ")
    }

    @Test func aByteOrderMarkWinsOverTheLabel() throws {
        let utf8 = response([0xEF, 0xBB, 0xBF] + Array("café".utf8), contentType: "text/plain; charset=iso-8859-1")
        #expect(try utf8.decodedText() == "café")
        let utf16 = response([0xFE, 0xFF, 0x00, 0x68, 0x00, 0xE9], contentType: "text/plain; charset=utf-8")
        #expect(try utf16.decodedText() == "hé")
        let noHeader = response([0xFF, 0xFE, 0x68, 0x00], contentType: nil)
        #expect(try noHeader.decodedText() == "h")
    }

    @Test func withoutACharsetTheBodyIsUTF8() throws {
        #expect(try response(Array("déjà".utf8), contentType: "text/html").decodedText() == "déjà")
        #expect(response(Array("déjà".utf8), contentType: nil).charset == .utf8)
        #expect(response([], contentType: "text/plain; charset=\"Shift_JIS\"").charset.name == "Shift_JIS")
    }

    @Test func invalidBytesAreAParsingFailure() {
        let cases: [([UInt8], String)] = [
            ([0x63, 0xE9], "utf-8"),  // Latin-1 bytes labelled UTF-8
            ([0x41, 0x00, 0x42], "utf-16le"),  // an odd length
            ([0x00, 0xD8], "utf-16le"),  // an unpaired surrogate
            ([0xDB], "windows-874"),  // a byte the table leaves unmapped
            ([0xA1], "iso-8859-8"),  // likewise
        ]
        for (bytes, label) in cases {
            let response = response(bytes, contentType: "text/plain; charset=\(label)")
            #expect(response.text == nil, "\(label)")
            #expect(throws: FaradayError.self, "\(label)") { try response.decodedText() }
            do {
                _ = try response.decodedText()
            } catch {
                #expect(error.code == .parsingFailed, "\(label)")
                #expect(error.response?.body == Data(bytes), "the error carries the response")
            }
        }
    }

    /// A label the standard does not know is read as UTF-8, as browsers read it; a byte-order
    /// mark wins over any label.
    @Test func anUnknownLabelIsReadAsUTF8AndAMarkWinsOverIt() throws {
        #expect(try response(Array("déjà".utf8), contentType: "text/plain; charset=utf8mb4").decodedText() == "déjà")
        #expect(response([], contentType: "text/plain; charset=klingon").charset == .utf8)
        let marked = response([0xEF, 0xBB, 0xBF, 0x68, 0x69], contentType: "text/plain; charset=utf8mb4")
        #expect(marked.text == "hi")
        let replacement = response([0xFF, 0xFE, 0x68, 0x00], contentType: "text/plain; charset=iso-2022-kr")
        #expect(replacement.text == "h", "the mark names UTF-16 before the label is looked at")
    }

    @Test(arguments: ["\tutf-8\n", "\r\u{0C}UTF-8 "])
    func labelsAreTrimmedOfASCIIWhitespace(_ label: String) {
        #expect(Charset(label: label) == .utf8)
    }

    @Test func gbkHasNoFourByteSequencesButGB18030Does() throws {
        let gbk = try #require(Charset(label: "gbk"))
        #expect(throws: FaradayError.self) { try gbk.encode("😀") }
        #expect(try gbk.encode("中") == Data([0xD6, 0xD0]))
        #expect(try #require(Charset(label: "gb18030")).encode("😀").count == 4)
    }

    @Test func aBareUTF16BodyCarriesAByteOrderMark() {
        let body = RequestBody.text("hé", contentType: "text/plain; charset=utf-16")
        #expect(body.bytesInMemory == Data([0xFF, 0xFE, 0x68, 0x00, 0xE9, 0x00]))
        let little = RequestBody.text("h", contentType: "text/plain; charset=utf-16le")
        #expect(little.bytesInMemory == Data([0x68, 0x00]))
    }

    /// A form in a charset this platform cannot write goes as UTF-8, labelled so, not as
    /// references to every character.
    @Test func aFormInACharsetThePlatformCannotWriteIsUTF8() async throws {
        for label in Self.foundationLacks {
            let stubs = TestAdapter()
            stubs.stub(.post, .path("/v1/form"), response: StubResponse(status: .ok))
            let charset = try #require(Charset(label: label))
            let connection = try makeConnection([URLEncoded.Handler(charset: charset)], adapter: stubs)
            _ = try await connection.post("form", body: .form(["city": "東京"])).value
            let request = try #require(stubs.calls.first)
            #expect(String(decoding: try request.body.bytes, as: UTF8.self) == "city=%E6%9D%B1%E4%BA%AC")
            #expect(request.headers[.contentType] == "application/x-www-form-urlencoded")
        }
    }

    @Test func theEndpointTextDecoderReadsTheCharset() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/page") { _, _ in
            StubResponse(headers: [.contentType: "text/html; charset=windows-1251"], body: Data([0xCF, 0xF0, 0xE8]))
        }
        let connection = try makeConnection(adapter: stubs)
        #expect(try await connection.get("page").value.response?.text == "При")
        let api = API(connection: connection, base: Endpoint(decoder: .none))
        #expect(try await api.send(api.get(.text, from: "page")) == "При")
    }

    @Test func aRefusedOrUndecodableCharsetIsUnsupported() {
        for label in ["iso-2022-kr", "replacement"] + Self.foundationLacks {
            let response = response(Array("hi".utf8), contentType: "text/plain; charset=\(label)")
            #expect(response.text == nil)
            do {
                _ = try response.decodedText()
                Issue.record("\(label) decoded")
            } catch {
                #expect(error.code == .unsupportedCharset, "\(label)")
            }
        }
    }

    @Test func encodingACharacterTheCharsetLacksFails() throws {
        let latin1 = try #require(Charset(label: "iso-8859-1"))
        do {
            _ = try latin1.encode("日本")
            Issue.record("encoded")
        } catch {
            #expect(error.code == .encodingFailed)
        }
        #expect(try Charset.utf16BigEndian.encode("h😀") == Data([0x00, 0x68, 0xD8, 0x3D, 0xDE, 0x00]))
    }

    // MARK: Request bodies

    @Test func aTextBodyIsWrittenInItsCharset() throws {
        let body = RequestBody.text("café €", contentType: "text/plain; charset=ISO-8859-1")
        #expect(body.bytesInMemory == Data([0x63, 0x61, 0x66, 0xE9, 0x20, 0x80]))
        #expect(body.contentType == "text/plain; charset=ISO-8859-1")
        #expect(RequestBody.text("café").bytesInMemory == Data("café".utf8))
    }

    @Test func textTheCharsetCannotHoldIsSentAsUTF8AndSaysSo() throws {
        let body = RequestBody.text("日本", contentType: "text/plain; charset=iso-8859-1; format=flowed")
        #expect(body.bytesInMemory == Data("日本".utf8))
        #expect(body.contentType == "text/plain; charset=utf-8; format=flowed")
    }

    @Test func aFormIsWrittenInItsCharsetWithReferencesForTheRest() async throws {
        let stubs = TestAdapter()
        stubs.stub(.post, .path("/v1/form"), response: StubResponse(status: .ok))
        let windows1252 = try #require(Charset(label: "windows-1252"))
        let connection = try makeConnection([URLEncoded.Handler(charset: windows1252)], adapter: stubs)
        _ = try await connection.post("form", body: .form(["name": "Zoë & €", "city": "東京"])).value
        let request = try #require(stubs.calls.first)
        let form = String(decoding: try request.body.bytes, as: UTF8.self).split(separator: "&").sorted()
        #expect(form == ["city=%26%2326481%3B%26%2320140%3B", "name=Zo%EB+%26+%80"])
        #expect(request.headers[.contentType] == "application/x-www-form-urlencoded; charset=windows-1252")
    }

    @Test func aUTF8FormIsUnchanged() async throws {
        let stubs = TestAdapter()
        stubs.stub(.post, .path("/v1/form"), response: StubResponse(status: .ok))
        let connection = try makeConnection([URLEncoded.Handler()], adapter: stubs)
        _ = try await connection.post("form", body: .form(["name": "Zoë"])).value
        let request = try #require(stubs.calls.first)
        #expect(String(decoding: try request.body.bytes, as: UTF8.self) == "name=Zo%C3%AB")
        #expect(request.headers[.contentType] == "application/x-www-form-urlencoded")
    }
}
