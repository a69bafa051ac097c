import Faraday
import FaradayAsyncHTTPClient
import FaradayNIO
import FaradayTestSupport
import FaradayXML
import Foundation
import HTTPTypes
import Testing
import XMLCoder

struct Order: Codable, Sendable, Equatable {
    var id: Int
    var customer: String
    var items: [String]
    var total: Double
}

/// XML bodies both ways, and the hostile documents refused before anything decodes them.
@Suite(.timeLimit(.minutes(2))) struct XMLTests {
    static let order = Order(id: 7, customer: "Zoë", items: ["tea", "scones & jam"], total: 12.5)

    private func stubbed(_ document: String, contentType: String = "application/xml") throws -> Connection {
        try stubbed(Data(document.utf8), contentType: contentType)
    }

    private func stubbed(_ document: Data, contentType: String = "application/xml") throws -> Connection {
        let stubs = TestAdapter()
        stubs.get("/v1/doc") { _, _ in StubResponse(headers: [.contentType: contentType], body: document) }
        return try Connection(url: "https://api.example.com/v1") { builder in
            builder.use(DecodeXML.Handler())
            builder.adapter = stubs
        }
    }

    // MARK: Encoding

    @Test func aValueIsEncodedUnderItsRoot() async throws {
        let stubs = TestAdapter()
        stubs.stub(.post, .path("/v1/orders"), response: StubResponse(status: .created))
        let connection = try Connection(url: "https://api.example.com/v1") { builder in
            builder.use(EncodeJSON.Handler())  // takes any Encodable, but not an XML body
            builder.use(EncodeXML.Handler())
            builder.adapter = stubs
        }
        _ = try await connection.post("orders", body: .xml(Self.order, root: "order")).value
        let request = try #require(stubs.calls.first)
        let xml = String(decoding: try request.body.bytes, as: UTF8.self)
        #expect(xml.hasPrefix(#"<?xml version="1.0" encoding="UTF-8"?>"#))
        #expect(xml.contains("<order><id>7</id><customer>Zoë</customer><items>tea</items>"))
        #expect(xml.contains("<items>scones &amp; jam</items>"))
        #expect(request.headers[.contentType] == "application/xml")
        // And back: what was sent decodes to the value.
        #expect(try XMLDecoder().decode(Order.self, from: try request.body.bytes) == Self.order)
    }

    @Test func withoutEncodeXMLAPlainEncoderIsUsed() async throws {
        let stubs = TestAdapter()
        stubs.stub(.post, .path("/v1/orders"), response: StubResponse(status: .created))
        let connection = try Connection(url: "https://api.example.com/v1") { $0.adapter = stubs }
        _ = try await connection.post("orders", body: .xml(Self.order, root: "order")).value
        let request = try #require(stubs.calls.first)
        #expect(try XMLDecoder().decode(Order.self, from: try request.body.bytes) == Self.order)
        #expect(request.headers[.contentType] == "application/xml")
    }

    @Test func theEncodersStrategiesAreUsed() async throws {
        struct Stamp: Codable, Sendable { var at: Date }
        let stubs = TestAdapter()
        stubs.stub(.post, .path("/v1/stamps"), response: StubResponse(status: .created))
        let connection = try Connection(url: "https://api.example.com/v1") { builder in
            builder.use(
                EncodeXML.Handler(contentType: "text/xml") {
                    let encoder = XMLEncoder()
                    encoder.dateEncodingStrategy = .iso8601
                    return encoder
                }
            )
            builder.adapter = stubs
        }
        _ = try await connection.post("stamps", body: .xml(Stamp(at: Date(timeIntervalSince1970: 0)), root: "stamp"))
            .value
        let request = try #require(stubs.calls.first)
        #expect(String(decoding: try request.body.bytes, as: UTF8.self).contains("<at>1970-01-01T00:00:00Z</at>"))
        #expect(request.headers[.contentType] == "text/xml")
    }

    @Test func aValueThatCannotBeEncodedFailsBeforeSending() async throws {
        struct Bad: Encodable, Sendable {
            func encode(to encoder: any Encoder) throws {
                throw EncodingError.invalidValue(0, .init(codingPath: [], debugDescription: "no"))
            }
        }
        let stubs = TestAdapter()
        let connection = try Connection(url: "https://api.example.com/v1") { builder in
            builder.use(EncodeXML.Handler())
            builder.adapter = stubs
        }
        let error = await #expect(throws: FaradayError.self) {
            try await connection.post("x", body: .xml(Bad(), root: "bad")).value
        }
        #expect(error?.code == .encodingFailed)
        #expect(stubs.calls.isEmpty)
    }

    // MARK: Decoding

    @Test func aDocumentDecodesAndXMLIsAccepted() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/doc") { env, _ in
            StubResponse(
                headers: [
                    .contentType: "application/xml; charset=utf-8",
                    .init("X-Accept")!: env.request.headers[.accept] ?? "",
                ],
                body: TextRoutes.xmlDocuments["order"] ?? ""
            )
        }
        let connection = try Connection(url: "https://api.example.com/v1") { builder in
            builder.use(DecodeXML.Handler())
            builder.adapter = stubs
        }
        let response = connection.get("doc")
        #expect(try await response.decodeXML(Order.self) == Self.order)
        let accept = try await response.value.responseHeaders[.init("X-Accept")!]
        #expect(accept == "application/xml, text/xml")
    }

    @Test func aDocumentThatDoesNotFitTheTypeIsAParsingFailure() async throws {
        struct Other: Decodable { var missing: String }
        let connection = try stubbed(TextRoutes.xmlDocuments["order"] ?? "")
        let error = await #expect(throws: FaradayError.self) { try await connection.get("doc").decodeXML(Other.self) }
        #expect(error?.code == .parsingFailed)
        #expect(error?.underlying is DecodingError)
        #expect(error?.response?.body.isEmpty == false)
    }

    /// Each hostile or broken document fails the call itself (DecodeXML checks on completion),
    /// with an error naming why; none crashes, hangs or expands.
    @Test(arguments: [
        ("bomb", "document type declaration"), ("xxe", "document type declaration"),
        ("deep", "deeper than 256"), ("malformed", "not well-formed"),
    ])
    func hostileDocumentsAreRefused(_ name: String, _ reason: String) async throws {
        let connection = try stubbed(TextRoutes.xmlDocuments[name] ?? "")
        let error = await #expect(throws: FaradayError.self) { try await connection.get("doc").value }
        #expect(error?.code == .parsingFailed)
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
        #expect(error?.response != nil)
    }

    /// What Linux's XMLParser lets through by itself (it recovers, and returns `true`).
    @Test(arguments: ["<a>", "<a><b></a>", "<a></a><b/>", "just text", "<a>&undefined;</a>"])
    func documentsThatAreNotWellFormedAreRefused(_ document: String) async throws {
        let error = await #expect(throws: FaradayError.self) { try await stubbed(document).get("doc").value }
        #expect(error?.code == .parsingFailed, "\(document)")
    }

    @Test func decodeXMLChecksEvenWithoutTheMiddleware() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/doc") { _, _ in StubResponse(body: TextRoutes.xmlDocuments["deep"] ?? "") }
        let connection = try Connection(url: "https://api.example.com/v1") { $0.adapter = stubs }
        let error = await #expect(throws: FaradayError.self) { try await connection.get("doc").decodeXML(Order.self) }
        #expect(error?.code == .parsingFailed)
        #expect(error?.message.contains("deeper") == true)
    }

    @Test func aDocumentOverTheSizeLimitIsTooLarge() async throws {
        let stubs = TestAdapter()
        let big = "<list>" + String(repeating: "<i>1</i>", count: 20_000) + "</list>"
        stubs.get("/v1/doc") { _, _ in StubResponse(headers: [.contentType: "text/xml"], body: big) }
        let connection = try Connection(url: "https://api.example.com/v1") { builder in
            builder.use(DecodeXML.Handler(limits: XMLLimits(maximumSize: 100_000)))
            builder.adapter = stubs
        }
        let error = await #expect(throws: FaradayError.self) { try await connection.get("doc").value }
        #expect(error?.code == .bodyTooLarge)
    }

    @Test(arguments: [
        "<!-- c --><?pi x?>\n<!DOCTYPE a><a/>",
        "\u{FEFF}<!DOCTYPE a><a/>",
        "<?xml version=\"1.0\"?>\n  <!DOCTYPE a SYSTEM \"http://example.com/a.dtd\"><a/>",
    ])
    func aDeclarationAnywhereInThePrologIsFound(_ document: String) async throws {
        let error = await #expect(throws: FaradayError.self) { try await stubbed(document).get("doc").value }
        #expect(error?.message.contains("document type declaration") == true, "\(error?.message ?? "")")
    }

    @Test func aUTF16DocumentWithADeclarationIsRefused() async throws {
        var data = Data([0xFF, 0xFE])
        for unit in "<!DOCTYPE a [<!ENTITY e \"x\">]><a>&e;</a>".utf16 {
            data.append(contentsOf: [UInt8(unit & 0xFF), UInt8(unit >> 8)])
        }
        let connection = try stubbed(data)
        let error = await #expect(throws: FaradayError.self) { try await connection.get("doc").value }
        #expect(error?.message.contains("document type declaration") == true)
    }

    /// Encodings in which `<!DOCTYPE` is other bytes than ASCII's, which the parser detects or is
    /// told of: refused, not scanned as if they were ASCII.
    @Test func documentsInEncodingsTheCheckCannotReadAreRefused() async throws {
        func utf16LE(_ text: String) -> Data { Data(text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }) }
        let declaration = #"<!DOCTYPE r [<!ENTITY e "EXPANDED">]><r>&e;</r>"#
        let documents: [Data] = [
            utf16LE(#"<?xml version="1.0" encoding="UTF-16"?>"# + declaration),  // no byte-order mark
            Data((#"<?xml version="1.0" encoding="UTF-7"?>"# + "+ADwAIQ-DOCTYPE r+AD4-<r/>").utf8),
            Data([0x4C, 0x6F, 0xA7, 0x94, 0x40, 0xA5]),  // "<?xml v" in EBCDIC
            // Issue 66: the declaration read by XML's grammar, whatever white space it holds
            // (CR and LF are white space too) and however far it is padded.
            Data((#"<?xml version="1.0" encoding"# + "\n=\r\n" + #""UTF-7"?>"# + "+ADwAIQ-DOCTYPE r+AD4-<r/>").utf8),
            Data(
                (#"<?xml version="1.0""# + String(repeating: " ", count: 600) + #"encoding="UTF-7"?>"#
                    + "+ADwAIQ-DOCTYPE r+AD4-<r/>").utf8
            ),
            Data(("<?xml version = '1.0' encoding\t=\t'utf-7' ?>" + "+ADwAIQ-DOCTYPE r+AD4-<r/>").utf8),
            // A declaration the grammar cannot read is not guessed at.
            Data((#"<?xml version="1.0" encoding="UTF-8""# + String(repeating: " ", count: 600)).utf8),
            Data(#"<?xml version="1.0" encoding=UTF-7?><r/>"#.utf8),
        ]
        for document in documents {
            let connection = try stubbed(document)
            let error = await #expect(throws: FaradayError.self) { try await connection.get("doc").value }
            #expect(error?.code == .parsingFailed)
            #expect(error?.message.contains("refused rather than checked") == true, "\(error?.message ?? "")")
        }
    }

    /// Declarations the grammar allows, spread over lines and padded, are read and pass.
    @Test func aDeclarationWithWhiteSpaceAnywhereTheGrammarAllowsIsRead() async throws {
        struct Name: Decodable, Equatable { var first: String }
        for declaration in [
            "<?xml version=\"1.0\"\r\n  encoding = 'UTF-8'\n  standalone=\"yes\" ?>",
            "<?xml version='1.0'" + String(repeating: " ", count: 700) + "?>",
            "<?xml-stylesheet href=\"a.xsl\"?>",
        ] {
            let document = Data((declaration + "<name><first>Zoe</first></name>").utf8)
            #expect(try await stubbed(document).get("doc").decodeXML(Name.self) == Name(first: "Zoe"), "\(declaration)")
        }
    }

    @Test func aDocumentInALegacyEncodingIsReadAndDecoded() async throws {
        struct Name: Decodable, Equatable { var first: String }
        let latin1 =
            Data(#"<?xml version="1.0" encoding="ISO-8859-1"?><name><first>Zo"#.utf8) + Data([0xEB])
            + Data("</first></name>".utf8)
        #expect(try await stubbed(latin1).get("doc").decodeXML(Name.self) == Name(first: "Zoë"))
    }

    @Test func textThatLooksLikeADeclarationInsideTheDocumentIsFine() async throws {
        let connection = try stubbed(TextRoutes.xmlDocuments["feed"] ?? "", contentType: "application/atom+xml")
        let env = try await connection.get("doc").value
        #expect(env.body.count > 0)
    }

    @Test func otherContentTypesAreLeftAlone() async throws {
        let connection = try stubbed("not xml at all <", contentType: "text/plain")
        #expect(try await connection.get("doc").value.response?.text == "not xml at all <")
    }

    // MARK: Against the in-process server, on every adapter

    @Test func documentsFromARealServerOnEveryAdapter() async throws {
        let server = try await TestServer.start()
        var adapters: [any Adapter] = [URLSessionAdapter(), AsyncHTTPClientAdapter()]
        if #available(macOS 15.0, *) { adapters.append(NIOAdapter()) }
        do {
            for adapter in adapters {
                let connection = try Connection(url: server.baseURL.absoluteString) { builder in
                    builder.use(EncodeXML.Handler())
                    builder.use(DecodeXML.Handler())
                    builder.adapter = adapter
                }
                #expect(try await connection.get("xml/order").decodeXML(Order.self) == Self.order, "\(adapter)")
                for name in ["bomb", "xxe", "deep", "malformed"] {
                    let error = await #expect(throws: FaradayError.self) {
                        try await connection.get("xml/\(name)").value
                    }
                    #expect(error?.code == .parsingFailed, "\(adapter) \(name)")
                }
                // The bytes on the wire: the server echoes what it received.
                let echo = try await connection.post("echo", body: .xml(Self.order, root: "order")).value
                let received = try #require(try JSONSerialization.jsonObject(with: echo.body) as? [String: Any])
                let body = try #require(received["body"] as? String)
                #expect(try XMLDecoder().decode(Order.self, from: Data(body.utf8)) == Self.order, "\(adapter)")
                let headers = try #require(received["headers"] as? [[String]])
                #expect(headers.contains(["Content-Type", "application/xml"]), "\(adapter): \(headers)")
                try await (adapter as? AsyncHTTPClientAdapter)?.shutdown()
                if #available(macOS 15.0, *) { try await (adapter as? NIOAdapter)?.shutdown() }
            }
        } catch {
            try await server.shutdown()
            throw error
        }
        try await server.shutdown()
    }
}
