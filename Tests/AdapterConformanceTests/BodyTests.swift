import Faraday
import FaradayTestSupport
import Foundation
import Testing

extension AdapterConformance {
    @Suite(.timeLimit(.minutes(3))) struct BodyTests {
        private static func pattern(_ count: Int) -> Data {
            Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        }

        @Test(arguments: AdapterKind.allCases)
        func bytesBodiesArriveWhole(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, _ in
                for size in [0, 1, 10 * 1024 * 1024] {
                    let body = Self.pattern(size)
                    let env = try await connection.post("echo/body", body: .bytes(body)).value
                    #expect(env.body.count == size)
                    #expect(env.body == body)
                }
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func streamedBodiesOfUnknownLengthArriveWhole(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, _ in
                let chunk = Self.pattern(64 * 1024)
                let body = RequestBody.stream {
                    AsyncStream<Data> { continuation in
                        for _ in 0..<32 { continuation.yield(chunk) }
                        continuation.finish()
                    }
                }
                struct Upload: Decodable {
                    let bytes: Int
                    let fnv1a: String
                }
                let upload = try await connection.post("upload", body: body).decode(Upload.self)
                #expect(upload.bytes == 32 * 64 * 1024)

                var hash: UInt64 = 0xcbf2_9ce4_8422_2325
                for _ in 0..<32 { for byte in chunk { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 } }
                #expect(upload.fnv1a == String(hash, radix: 16))
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func aBufferedBodyOverTheLimitFails(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, _ in
                await #expect {
                    try await connection.get("bytes/100000") { $0.options.maxBufferedBodySize = 1000 }.value
                } throws: { error in
                    isFaradayError(error, .bodyTooLarge)
                }
            }
        }

        @Test(arguments: AdapterKind.allCases)
        func aOneShotBodyIsNotSentTwice(_ kind: AdapterKind) async throws {
            try await withConnection(kind) { connection, server in
                let body = RequestBody.stream(
                    AsyncStream<Data> {
                        $0.yield(Data("x".utf8))
                        $0.finish()
                    }
                )
                _ = try await connection.post("echo/body", body: body).value
                await #expect {
                    try await connection.run(method: .post, "echo/body", body: body).value
                } throws: { error in
                    isFaradayError(error, .bodyNotReplayable)
                }
                #expect(server.requestsReceived == 1)
            }
        }
    }
}
