#if AsyncHTTPClient
import AsyncHTTPClient
import Faraday
import FaradayNIO
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

extension AsyncHTTPClientAdapter {
    /// A call with no request body and a buffered response (most GETs) through AsyncHTTPClient's
    /// async API, which costs less per request than the delegate API that request bodies and
    /// streamed responses need (Benchmarks/README.md: 11–12 % more requests/s with 64 in flight).
    ///
    /// The transfer runs in a task of its own so that Faraday's cancellation (the response handle,
    /// `env.cancel()`, a layer abandoning an attempt) can cancel it; cancelling the awaiting task
    /// reaches it too. The body is gathered up to `maxBufferedBodySize` and reported to the call's
    /// download progress as it arrives, as the delegate does. `RequestOptions.timeout` is the
    /// deadline of the whole call, body included, as on the delegate API (AsyncHTTPClient's own
    /// deadline on this API covers the head only).
    func callThroughAsyncAPI(_ env: Env, on client: HTTPClient, lease: Lease) async throws(FaradayError) -> Completions
    {
        let request = env.request
        var clientRequest = HTTPClientRequest(url: request.url.absoluteString)
        clientRequest.method = HTTPMethod(rawValue: request.method.rawValue)
        clientRequest.headers = HTTP1Messages.headers(of: request)
        clientRequest.tlsConfiguration = try TLSSettings.configuration(
            request.options.tls,
            base: tlsBase
        )
        let logger = Self.clientLogger(env.logger)
        let limit = request.options.maxBufferedBodySize
        let progress = env
        let method = request.method

        try env.cancellation.check()
        let transfer = Task {
            // Cancelled before it began: nothing is sent.
            try Task.checkCancellation()
            let response = try await client.execute(clientRequest, deadline: .distantFuture, logger: logger)
            let expected = TransferProgress.expectedBodyLength(
                method: method,
                status: Int(response.status.code),
                contentLength: response.headers.first(name: "content-length")
            )
            progress.reportProgress(received: 0, of: expected)
            var body = ByteBuffer()
            for try await part in response.body {
                progress.reportProgress(received: Int64(body.readableBytes + part.readableBytes), of: expected)
                guard body.append(part, upTo: limit) else { throw BodyTooLarge(limit: limit) }
            }
            return Answer(status: response.status, headers: response.headers, version: response.version, body: body)
        }
        // What stopped the transfer first, the deadline or a cancellation: a cancellation that
        // lands after the deadline fired is still a timeout, and the other way round.
        let stop = Locked<Stop?>(nil)
        let timer = request.options.timeout.map { timeout in
            eventLoopGroup.any().scheduleTask(in: TimeAmount(timeout)) {
                if stop.setFirst(.deadline) { transfer.cancel() }
            }
        }
        defer { timer?.cancel() }
        let answer: Answer
        do {
            answer = try await env.cancellation.withCancellationHandler {
                try await transfer.value
            } onCancel: {
                _ = stop.setFirst(.cancellation)
                transfer.cancel()
            }
        } catch {
            let timedOut = stop.snapshot == .deadline && Self.isCancellation(error)
            throw Self.faradayError(timedOut ? HTTPClientError.deadlineExceeded : error, request: request)
        }
        var completion = env
        completion.response = try HTTP1Messages.response(
            answer.status,
            answer.headers,
            answer.version,
            request: request
        )
        completion.response?.body = Data(buffer: answer.body, byteTransferStrategy: .noCopy)
        lease.release()
        return .buffered(consume completion)
    }

    /// The parts of AsyncHTTPClient's response a call keeps (not the response, which holds its
    /// transaction and body sequence).
    private struct Answer: Sendable {
        let status: HTTPResponseStatus
        let headers: HTTPHeaders
        let version: HTTPVersion
        let body: ByteBuffer
    }

    private enum Stop { case deadline, cancellation }

    /// How AsyncHTTPClient's async API ends a cancelled transfer.
    private static func isCancellation(_ error: any Error) -> Bool {
        error is CancellationError || (error as? HTTPClientError) == .cancelled
    }
}
#endif
