import Foundation
import NIOCore

/// Bodies as servers send them in encodings other than UTF-8 (`/text`), and the compressed
/// bodies the reference tools made (`/fixture`):
///
/// - `/text?charset=LABEL`: ``samples``' bytes for that label, as `text/plain; charset=LABEL`.
/// - `/xml/NAME`: one of ``xmlDocuments`` as an XML API sends it (`application/xml;
///   charset=utf-8`, an Atom feed as `application/atom+xml`), hostile ones among them.
/// - `/fixture?name=NAME&encoding=CODING&piece=N`: the file `NAME` of
///   `Tests/FaradayTests/Resources/compression` (made by the `brotli` and `zstd` programs),
///   with `Content-Encoding: CODING`, chunked in pieces of `N` bytes (all at once without `piece`);
///   `truncate=K` leaves out its last K bytes (a compressed stream cut short in a whole HTTP body).
package enum TextRoutes {
    /// Text and its bytes in an encoding, as Python's codecs wrote them (`str.encode`): the
    /// reference the decoders are held to. `iso-8859-1` is written as windows-1252, as browsers
    /// (and the Encoding Standard) read that label: its `€` is 0x80.
    package static let samples: [(label: String, text: String, hex: String)] = [
        ("iso-8859-1", "café crème, 5 €", "636166e9206372e86d652c20352080"),
        ("windows-1252", "naïve “quotes” – €", "6e61ef7665209371756f7465739420962080"),
        ("iso-8859-2", "Zażółć gęślą jaźń", "5a61bff3b3e62067eab66cb1206a61bcf1"),
        ("koi8-r", "Привет, мир", "f0d2c9d7c5d42c20cdc9d2"),
        ("windows-1251", "Привет, мир", "cff0e8e2e5f22c20ece8f0"),
        ("iso-8859-7", "Καλημέρα", "cae1ebe7ecddf1e1"),
        ("windows-1256", "مرحبا", "e3d1cdc8c7"),
        ("shift_jis", "日本語のテキスト", "93fa967b8cea82cc8365834c83588367"),
        ("euc-jp", "日本語のテキスト", "c6fccbdcb8eca4cea5c6a5ada5b9a5c8"),
        ("gbk", "中文文本", "d6d0cec4cec4b1be"),
        ("big5", "繁體中文", "c163c5e9a4a4a4e5"),
        ("euc-kr", "한국어 텍스트", "c7d1b1b9beee20c5d8bdbac6ae"),
        ("utf-16le", "UTF-16 – ✓", "5500540046002d00310036002000132020001327"),
        ("utf-8", "déjà vu ✓", "64c3a96ac3a020767520e29c93"),
    ]

    /// The bytes a hex string spells.
    package static func bytes(hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count - 1, by: 2).compactMap {
            UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16)
        }
    }

    /// The folder of the compressed fixtures, found from this file's place in the repository.
    package static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appending(path: "../../Tests/FaradayTests/Resources/compression").standardizedFileURL

    /// XML documents as servers send them, good and hostile.
    package static let xmlDocuments: [String: String] = [
        "order": #"""
        <?xml version="1.0" encoding="UTF-8"?>
        <!-- an order, as a shop's API answers -->
        <order><id>7</id><customer>Zoë</customer><items>tea</items><items>scones &amp; jam</items>\#
        <total>12.5</total></order>
        """#,
        "feed": #"""
        <?xml version="1.0" encoding="utf-8"?>
        <feed xmlns="http://www.w3.org/2005/Atom"><title>Faraday news</title>\#
        <entry><title>XML</title><summary><![CDATA[<!DOCTYPE html> is <b>text</b> here]]></summary></entry>\#
        </feed>
        """#,
        // "Billion laughs": ten entities of ten references each, nine deep.
        "bomb": #"""
        <?xml version="1.0"?>
        <!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">\#
        <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">\#
        <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
        <order><id>&lol3;</id></order>
        """#,
        // An external entity: a parser that resolves it reads a local file into the document.
        "xxe": #"""
        <?xml version="1.0"?>
        <!-- a comment first, then the declaration -->
        <!DOCTYPE order [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
        <order><id>&secret;</id></order>
        """#,
        "deep": String(repeating: "<a>", count: 100_000) + String(repeating: "</a>", count: 100_000),
        "malformed": "<?xml version=\"1.0\"?>\n\n<order>\n\n<id>7</id>\n\n<items>tea</order>\n",
    ]

    static func xml(_ name: String, _ writer: ResponseWriter) async throws {
        guard let document = xmlDocuments[name] else { return try await writer.respond(404, text: "no such document") }
        let type = name == "feed" ? "application/atom+xml" : "application/xml; charset=utf-8"
        try await writer.respond(200, headers: [("content-type", type)], body: ByteBuffer(string: document))
    }

    static func text(_ request: ServerRequest, _ writer: ResponseWriter) async throws {
        guard let label = request.query["charset"], let sample = samples.first(where: { $0.label == label }) else {
            return try await writer.respond(404, text: "no sample for that charset")
        }
        try await writer.respond(
            200,
            headers: [("content-type", "text/plain; charset=\(label)")],
            body: ByteBuffer(bytes: bytes(hex: sample.hex))
        )
    }

    static func fixture(_ request: ServerRequest, _ writer: ResponseWriter) async throws {
        guard let name = request.query["name"], !name.contains("/"),
            var data = try? Data(contentsOf: fixtures.appending(path: name))
        else { return try await writer.respond(404, text: "no such fixture") }
        data = data.dropLast(request.int("truncate", default: 0))
        let headers = [
            ("content-type", "application/octet-stream"), ("content-encoding", request.query["encoding"] ?? ""),
        ]
        guard let piece = request.query["piece"].flatMap(Int.init), piece > 0 else {
            return try await writer.respond(200, headers: headers, body: ByteBuffer(bytes: data))
        }
        try await writer.head(200, headers: headers, contentLength: nil)
        for start in stride(from: 0, to: data.count, by: piece) {
            try await writer.chunk(ByteBuffer(bytes: data[start..<min(start + piece, data.count)]))
        }
        try await writer.endChunks()
    }
}
