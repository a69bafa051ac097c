import Faraday
import FaradayTestSupport
import Foundation
import Testing

extension AdapterConformance {
    @Suite(.timeLimit(.minutes(2))) struct DecompressionTests {
        static func followsPattern(_ body: Data, from offset: Int = 0) -> Bool {
            body.enumerated().allSatisfy { $0.element == UInt8(($0.offset + offset) % 251) }
        }

        @Test(arguments: AdapterKind.allCases)
        func gzipAndDeflateBodiesAreDecoded(_ kind: AdapterKind) async throws {
            try await withConnection(kind, handlers: [Decompression.Handler()]) { connection, _ in
                for encoding in ["gzip", "deflate", "raw"] {
                    let env = try await connection.get("compressed?encoding=\(encoding)&size=300000").value
                    #expect(env.body.count == 300_000, "\(encoding)")
                    #expect(Self.followsPattern(env.body), "\(encoding)")
                    #expect(env.responseHeaders[.contentEncoding] == nil)
                    #expect(env.responseHeaders[.contentLength] == nil, "the length was of the encoded body")
                }
            }
        }

        /// A request that asks for Brotli itself: URLSession's platform decodes it (Apple's and
        /// Linux's libcurl both do), so the body arrives plain and the adapter says so; AsyncHTTPClient
        /// hands the bytes over as sent, still marked `br`, for a layer that can decode them.
        @Test(arguments: AdapterKind.allCases)
        func aBrotliBodyIsMarkedAsItArrives(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, _ in
                let env = try await connection.get("brotli") { $0.headers[.acceptEncoding] = "br" }.value
                switch kind {
                case .urlSession:
                    #expect(String(decoding: env.body, as: UTF8.self) == #"{"hello":"brotli"}"#)
                    #expect(env.responseHeaders[.contentEncoding] == nil)
                    #expect(env.responseHeaders[.contentLength] == nil, "the length was of the encoded body")
                case .asyncHTTPClient, .nio:
                    #expect(Array(env.body) == ServerLikeRoutes.brotliBody)
                    #expect(env.responseHeaders[.contentEncoding] == "br")
                }
            }
        }

        /// A request that asks for zstd itself: some platforms' URLSession decode it (this
        /// machine's libcurl does), others hand it over as sent; the adapter tells which by the
        /// body's first bytes, so that the body and its marking agree, buffered or streamed.
        /// AsyncHTTPClient hands the bytes over as sent, still marked `zstd`.
        @Test(arguments: AdapterKind.allCases, [false, true])
        func aZstdBodyIsMarkedAsItArrives(_ kind: AdapterKind, _ streamed: Bool) async throws {
            try await withConnection(kind) { connection, _ in
                let response = connection.get("zstd") {
                    $0.headers[.acceptEncoding] = "zstd"
                    if streamed { $0.options.streaming = .chunks }
                }
                var body = Data()
                var headers = HTTPFields()
                for try await env in response.completions where !streamed || !env.isFinal {
                    body.append(env.body)
                    headers = env.responseHeaders
                }
                if kind == .urlSession, String(decoding: body, as: UTF8.self) == #"{"hello":"zstd"}"# {
                    #expect(headers[.contentEncoding] == nil)
                    #expect(headers[.contentLength] == nil, "the length was of the encoded body")
                } else {
                    #expect(Array(body) == ServerLikeRoutes.zstdBody)
                    #expect(headers[.contentEncoding] == "zstd")
                }
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func aStreamedBodyIsDecodedChunkByChunk(_ kind: AdapterKind) async throws {
            try await withConnection(kind, handlers: [Decompression.Handler()]) { connection, _ in
                var received = Data()
                var frames = 0
                let response = connection.get("compressed?encoding=gzip&size=2000000&chunked=1") {
                    $0.options.streaming = .chunks
                }
                for try await env in response.completions where !env.isFinal {
                    frames += 1
                    received.append(env.body)
                    #expect(env.responseHeaders[.contentEncoding] == nil)
                }
                #expect(received.count == 2_000_000)
                #expect(Self.followsPattern(received))
                #expect(frames > 1)
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func aBombIsStopped(_ kind: AdapterKind) async throws {
            try await withConnection(kind, handlers: [Decompression.Handler()]) { connection, _ in
                await #expect {
                    try await connection.get("compressed?encoding=gzip&size=100000000&zeros=1").value
                } throws: { error in
                    guard let error = error as? FaradayError else { return false }
                    if kind == .urlSession {
                        // URLSession decodes by itself; the buffered-body limit stops the bomb.
                        return error.code == .bodyTooLarge
                    }
                    return error.code == .decompressionFailed && error.message.contains("bomb")
                }
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func aTruncatedBodyIsAnError(_ kind: AdapterKind) async throws {
            try await withConnection(kind, handlers: [Decompression.Handler()]) { connection, _ in
                let response = connection.get("compressed?encoding=gzip&size=100000&truncate=1")
                if kind == .urlSession {
                    // FoundationNetworking's curl decodes by itself and does not report a gzip stream
                    // cut short inside a complete HTTP body: the body comes back short (documented).
                    if let env = try? await response.value { #expect(env.body.count < 100_000) }
                    return
                }
                await #expect {
                    try await response.value
                } throws: { error in
                    (error as? FaradayError)?.code == .decompressionFailed
                }
            }
        }
    }
}

extension AdapterConformance.DecompressionTests {
    /// The reference tools' Brotli and zstd bodies (Tests/FaradayTests/Resources/compression),
    /// sent in 7-byte chunks: decoded piece by piece to the same 300,000 bytes on every adapter
    /// (URLSession's platform may decode them first; the body is the same either way).
    @Test(arguments: AdapterKind.allCases, [false, true])
    func brotliAndZstdBodiesAreDecoded(_ kind: AdapterKind, _ streamed: Bool) async throws {
        try await withConnection(kind, handlers: [Decompression.Handler()]) { connection, _ in
            let fixtures = [
                ("pattern-300000.br", "br"), ("pattern-300000-window.br", "br"), ("pattern-300000.zst", "zstd"),
                ("pattern-300000-two-frames.zst", "zstd"),
            ]
            for (name, encoding) in fixtures {
                let response = connection.get("fixture?name=\(name)&encoding=\(encoding)&piece=7") {
                    if streamed { $0.options.streaming = .chunks }
                }
                var body = Data()
                for try await env in response.completions where !streamed || !env.isFinal {
                    body.append(env.body)
                    #expect(env.responseHeaders[.contentEncoding] == nil, "\(name)")
                }
                #expect(body.count == 300_000, "\(name)")
                #expect(Self.followsPattern(body), "\(name)")
            }
        }
    }

    @Test(arguments: AdapterKind.allCases, ["zeros-2GiB.br br", "zeros-2GiB.zst zstd"])
    func aBrotliOrZstdBombIsStopped(_ kind: AdapterKind, _ fixture: String) async throws {
        let parts = fixture.split(separator: " ")
        try await withConnection(kind, handlers: [Decompression.Handler()]) { connection, _ in
            await #expect {
                try await connection.get("fixture?name=\(parts[0])&encoding=\(parts[1])").value
            } throws: { error in
                guard let error = error as? FaradayError else { return false }
                if kind == .urlSession && error.code == .bodyTooLarge {
                    return true  // URLSession's platform decoded it; the buffered-body limit stopped it
                }
                return error.code == .decompressionFailed && error.message.contains("bomb")
            }
        }
    }

    @Test(arguments: AdapterKind.allCases, ["pattern-300000.br br", "pattern-300000.zst zstd"])
    func aTruncatedBrotliOrZstdBodyIsAnError(_ kind: AdapterKind, _ fixture: String) async throws {
        let parts = fixture.split(separator: " ")
        try await withConnection(kind, handlers: [Decompression.Handler()]) { connection, _ in
            let response = connection.get("fixture?name=\(parts[0])&encoding=\(parts[1])&truncate=9")
            do {
                let env = try await response.value
                // Only URLSession, whose platform decodes by itself, may hand over a short body.
                #expect(kind == .urlSession)
                #expect(env.body.count < 300_000)
            } catch {
                #expect((error as? FaradayError)?.code == .decompressionFailed, "\(error)")
            }
        }
    }

    /// RFC 9659 limits HTTP's zstd windows to 8 MiB; a frame that asks for 16 MiB is refused,
    /// not allocated (by this middleware; URLSession's platform applies its own rule).
    @Test(arguments: AdapterKind.allCases.filter { $0 != .urlSession })
    func aZstdFrameWithAWindowPast8MiBIsRefused(_ kind: AdapterKind) async throws {
        try await withConnection(kind, handlers: [Decompression.Handler()]) { connection, _ in
            await #expect {
                try await connection.get("fixture?name=pattern-300000-window16MiB.zst&encoding=zstd").value
            } throws: { error in
                (error as? FaradayError)?.code == .decompressionFailed
            }
        }
    }
}
