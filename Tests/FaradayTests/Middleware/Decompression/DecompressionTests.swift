import Faraday
import Foundation
import Testing

@Suite(.timeLimit(.minutes(1))) struct DecompressionTests {
    static let gzip = Data([
        31, 139, 8, 0, 0, 0, 0, 0, 2, 3, 203, 72, 205, 201, 201, 87, 40, 207, 47, 202, 73, 1, 0, 133, 17, 74, 13, 11, 0,
        0, 0,
    ])
    static let zlib = Data([120, 156, 203, 72, 205, 201, 201, 87, 40, 207, 47, 202, 73, 1, 0, 26, 11, 4, 93])
    static let raw = Data([203, 72, 205, 201, 201, 87, 40, 207, 47, 202, 73, 1, 0])

    /// 1 MiB of zeros, gzipped (`gzip.compress(bytes(1 << 20), mtime=0)` in Python).
    static let megabyteOfZerosGzip =
        "H4sIAAAAAAACA+3BMQEAAADCoPVPbQhfoAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAPgMc6jinAAAQ"
        + "AA=="

    private func get(
        _ chunks: [Data],
        encoding: String?,
        streamed: Bool = false
    ) async throws -> (text: String, headers: HTTPFields) {
        let stubs = TestAdapter()
        var headers: HTTPFields = [.contentLength: "\(chunks.reduce(0) { $0 + $1.count })"]
        if let encoding { headers[.contentEncoding] = encoding }
        stubs.get("/v1/x") { [headers] _, _ in StubResponse(headers: headers, body: ResponseBody(pieces: chunks)) }
        let response = try makeConnection([Decompression.Handler()], adapter: stubs).get("x") {
            $0.options.streaming = streamed ? .chunks : nil
        }
        var body = Data()
        var last = HTTPFields()
        for try await env in response.completions {
            body.append(env.body)
            last = env.responseHeaders
        }
        return (String(decoding: body, as: UTF8.self), last)
    }

    @Test(arguments: [(gzip, "gzip"), (gzip, "x-gzip"), (zlib, "deflate"), (raw, "deflate")])
    func eachFormatDecodes(_ body: Data, _ encoding: String) async throws {
        let (text, headers) = try await get([body], encoding: encoding)
        #expect(text == "hello world")
        #expect(headers[.contentEncoding] == nil)
        #expect(headers[.contentLength] == nil, "the length was of the encoded body")
    }

    @Test(arguments: [gzip, zlib, raw])
    func streamsDecodeAcrossOneByteChunks(_ body: Data) async throws {
        let chunks = body.map { Data([$0]) }
        let encoding = body == Self.gzip ? "gzip" : "deflate"
        let (text, headers) = try await get(chunks, encoding: encoding, streamed: true)
        #expect(text == "hello world")
        #expect(headers[.contentLength] == nil)
    }

    @Test func concatenatedGzipMembersAllDecode() async throws {
        #expect(try await get([Self.gzip + Self.gzip], encoding: "gzip").text == "hello worldhello world")
    }

    @Test(arguments: [false, true])
    func aGzipMemberEndingAtAChunksEndIsFollowedByTheNext(_ streamed: Bool) async throws {
        let text = try await get([Self.gzip, Self.gzip, Self.gzip], encoding: "gzip", streamed: streamed).text
        #expect(text == "hello worldhello worldhello world")
        await #expect {
            try await get([Self.gzip, Self.gzip.prefix(12)], encoding: "gzip", streamed: streamed)
        } throws: { error in
            (error as? FaradayError)?.code == .decompressionFailed
        }
        await #expect {
            try await get([Self.zlib, Self.zlib], encoding: "deflate", streamed: streamed)
        } throws: { error in
            (error as? FaradayError)?.code == .decompressionFailed
        }
    }

    @Test func aBufferedDecodedBodyIsBoundedByMaxBufferedBodySize() async throws {
        // 1 MiB of zeros, about 1 KiB compressed: far under the decompression limits.
        let zeros = try #require(Data(base64Encoded: Self.megabyteOfZerosGzip))
        let stubs = TestAdapter()
        stubs.get("/v1/x") { _, _ in StubResponse(headers: [.contentEncoding: "gzip"], body: zeros) }
        let connection = try makeConnection([Decompression.Handler()], adapter: stubs)
        #expect(try await connection.get("x").value.body.count == 1 << 20)
        await #expect {
            try await connection.get("x") { $0.options.maxBufferedBodySize = 64 * 1024 }.value
        } throws: { error in
            (error as? FaradayError)?.code == .bodyTooLarge
        }
        var streamed = 0
        for try await env in connection.get(
            "x",
            configure: {
                $0.options.maxBufferedBodySize = 64 * 1024
                $0.options.streaming = .chunks
            }
        ).completions {
            streamed += env.body.count
        }
        #expect(streamed == 1 << 20, "a streamed body is not buffered, so not bounded by it")
    }

    @Test(arguments: [Data([1, 2, 3, 4, 5]), gzip + Data([0xFF]), gzip.prefix(12)])
    func corruptTrailingAndTruncatedBodiesFail(_ body: Data) async throws {
        await #expect {
            try await get([body], encoding: "gzip")
        } throws: { error in
            (error as? FaradayError)?.code == .decompressionFailed
        }
    }

    @Test func otherEncodingsAndPlainBodiesPassThrough() async throws {
        #expect(try await get([Data("plain".utf8)], encoding: nil).text == "plain")
        let (text, headers) = try await get([Data("lzw?".utf8)], encoding: "compress")
        #expect(text == "lzw?" && headers[.contentEncoding] == "compress")
    }

    @Test func acceptEncodingIsSetUnlessTheRequestHasOne() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/x") { env, _ in StubResponse(body: env.request.headers[.acceptEncoding] ?? "") }
        let connection = try makeConnection([Decompression.Handler()], adapter: stubs)
        #expect(try await connection.get("x").value.response?.text == Decompression.acceptEncoding)
        #if os(Linux)
        // CI installs libbrotli1 and libzstd1 (.ci/run); without them only gzip and deflate are offered.
        #expect(Decompression.acceptEncoding == "gzip, deflate, br, zstd")
        #endif
        #expect(
            try await connection.get("x", headers: [.acceptEncoding: "identity"]).value.response?.text == "identity"
        )
    }

    @Test(arguments: [(false, "gzip", "add Decompression"), (true, "compress", "reads gzip, deflate")])
    func aDecoderNamesTheFixForABodyStillEncoded(
        _ decompresses: Bool,
        _ encoding: String,
        _ fix: String
    )
        async throws
    {
        let handlers: [any Handler] =
            decompresses ? [DecodeJSON.Handler(), Decompression.Handler()] : [DecodeJSON.Handler()]
        let stubs = TestAdapter()
        stubs.get("/v1/x") { _, _ in
            StubResponse(headers: [.contentEncoding: encoding, .contentType: "application/json"], body: Self.gzip)
        }
        let error = await #expect(throws: FaradayError.self) {
            try await makeConnection(handlers, adapter: stubs).get("x").value
        }
        #expect(error?.code == .parsingFailed)
        #expect(error?.message.contains(fix) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("not valid JSON") == false)
    }

    @Test func decodeJSONAboveOrBelowDecompressionReadsTheSameJSON() async throws {
        let json = try #require(Data(base64Encoded: "H4sIAAAAAAACA6tWSs7PLUjMq1SyUirOT0tUqgUAH5V8PRIAAAA="))
        let stubs = TestAdapter()
        stubs.get("/v1/x") { _, _ in
            StubResponse(headers: [.contentEncoding: "gzip", .contentType: "application/json"], body: json)
        }
        for handlers in [
            [DecodeJSON.Handler(), Decompression.Handler()], [Decompression.Handler(), DecodeJSON.Handler()],
        ]
            as [[any Handler]]
        {
            let env = try await makeConnection(handlers, adapter: stubs).get("x").value
            #expect(env.json?["company"]?.string == "sofa")
        }
    }

    @Test func theSizeLimitHolds() async throws {
        let stubs = TestAdapter()
        stubs.get("/v1/x") { _, _ in StubResponse(headers: [.contentEncoding: "gzip"], body: Self.gzip) }
        let connection = try makeConnection([Decompression.Handler(limits: .init(maximumSize: 5))], adapter: stubs)
        await #expect {
            try await connection.get("x").value
        } throws: { error in
            (error as? FaradayError)?.code == .decompressionFailed
        }
    }
}
