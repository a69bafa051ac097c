import AsyncHTTPClient
import Faraday
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

extension AsyncHTTPClientAdapter {
    /// A call with no request body and a buffered response (most GETs) through AsyncHTTPClient's
    /// async API, which costs less per request than the delegate API that bodies and streams need
    /// (Benchmarks/README.md: about 15 µs of CPU a request with 64 in flight).
    ///
    /// The transfer runs in a task of its own so that Faraday's cancellation (the response handle,
    /// `env.cancel()`, a layer abandoning an attempt) can cancel it; cancelling the awaiting task
    /// reaches it too. The body is gathered up to `maxBufferedBodySize` and reported to the call's
    /// download progress as it arrives, as the delegate does. `RequestOptions.timeout` is the
    /// deadline of the whole call, body included, as on the delegate API.
    func callWithoutBodies(_ env: Env, on client: HTTPClient, lease: Lease) async throws -> Completions {
        let request = env.request
        var clientRequest = HTTPClientRequest(url: request.url.absoluteString)
        clientRequest.method = HTTPMethod(rawValue: request.method.rawValue)
        clientRequest.headers = Self.headers(of: request)
        clientRequest.tlsConfiguration = try Self.tlsConfiguration(
            request.options.tls,
            base: configuration.tlsConfiguration
        )
        let logger = Self.clientLogger(env.logger)
        let limit = request.options.maxBufferedBodySize
        let progress = env.progress
        let method = request.method

        try env.cancellation.check()
        let transfer = Task {
            let response = try await client.execute(clientRequest, deadline: .distantFuture, logger: logger)
            let expected = TransferProgressReporter.expectedBodyLength(
                method: method,
                status: Int(response.status.code),
                contentLength: response.headers.first(name: "content-length")
            )
            progress.received(0, of: expected)
            var body = ByteBuffer()
            for try await var part in response.body {
                guard body.readableBytes + part.readableBytes <= limit else { throw BodyTooLarge(limit: limit) }
                body.writeBuffer(&part)
                progress.received(Int64(body.readableBytes), of: expected)
            }
            return (head: response, body: body)
        }
        // The whole call's deadline, body included (AsyncHTTPClient's own covers the head only).
        let expired = Locked(false)
        let timer = request.options.timeout.map { timeout in
            eventLoopGroup.any().scheduleTask(in: TimeAmount(timeout)) {
                if expired.setFirst() { transfer.cancel() }
            }
        }
        defer { timer?.cancel() }
        let answer: (head: HTTPClientResponse, body: ByteBuffer)
        do {
            answer = try await env.cancellation.withCancellationHandler {
                try await transfer.value
            } onCancel: {
                transfer.cancel()
            }
        } catch {
            let cause = expired.withLock { $0 } ? HTTPClientError.deadlineExceeded : error
            throw Self.faradayError(cause, request: request)
        }
        var completion = env
        completion.response = try Self.response(
            answer.head.status,
            answer.head.headers,
            answer.head.version,
            request: request
        )
        completion.response?.body = Data(buffer: answer.body, byteTransferStrategy: .noCopy)
        lease.release()
        return .buffered(completion)
    }
}
