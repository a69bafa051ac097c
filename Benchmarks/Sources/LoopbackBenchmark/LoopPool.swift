import Faraday
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOPosix

/// Issue 48's experiment, the ceiling of running a call where its bytes are: HTTP/1.1 on
/// SwiftNIO's own codec, keep-alive connections kept per event loop, and the caller's task on
/// that loop's executor, so that the request, the response's callbacks and the caller's code run
/// on one thread with no hand-over. Plain HTTP and GET only: it measures, it is not an adapter.
final class LoopPool: @unchecked Sendable {
    /// One pool per loop of the shared group; each is touched only on its own loop.
    static func make(host: String, port: Int) -> [LoopPool] {
        EventLoopTaskExecutor.all.map { LoopPool(executor: $0, host: host, port: port) }
    }

    let executor: EventLoopTaskExecutor
    /// The `Host` field of every request.
    let host: String
    private let port: Int
    /// Idle keep-alive connections of this loop (read and written on the loop only).
    private var idle: [(any Channel, ResponseCounter)] = []

    private init(executor: EventLoopTaskExecutor, host: String, port: Int) {
        self.executor = executor
        self.host = host
        self.port = port
    }

    /// GETs `path` and returns the body's length; to be called from a task that prefers this
    /// pool's executor (it checks).
    func get(_ path: String) async throws -> Int {
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path)
        head.headers.add(name: "Host", value: host)
        return try await exchange(head).body.readableBytes
    }

    /// Sends `head` (a request without a body) on an idle connection of this loop, or a new one,
    /// and returns the response's head and body.
    func exchange(_ head: HTTPRequestHead) async throws -> (head: HTTPResponseHead, body: ByteBuffer) {
        executor.loop.preconditionInEventLoop()
        let (channel, counter): (any Channel, ResponseCounter)
        if let kept = idle.popLast() { (channel, counter) = kept } else { (channel, counter) = try await connect() }
        executor.loop.preconditionInEventLoop()
        let promise = executor.loop.makePromise(of: (HTTPResponseHead, ByteBuffer).self)
        counter.promise = promise
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        let response = try await promise.futureResult.get()
        executor.loop.preconditionInEventLoop()
        if counter.keepAlive { idle.append((channel, counter)) } else { channel.close(promise: nil) }
        return response
    }

    func shutdown() async {
        let channels = try? await executor.loop.submit { [self] in
            defer { idle.removeAll() }
            return idle.map(\.0)
        }.get()
        for channel in channels ?? [] { try? await channel.close() }
    }

    private func connect() async throws -> (any Channel, ResponseCounter) {
        let channel = try await ClientBootstrap(group: executor.loop)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(ResponseCounter())
                }
            }
            .connect(host: host, port: port)
            .get()
        executor.loop.preconditionInEventLoop()
        let counter = try channel.pipeline.syncOperations.handler(type: ResponseCounter.self)
        return (channel, counter)
    }
}

/// Collects a response's head and body and completes the request's promise at its end.
final class ResponseCounter: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart

    var promise: EventLoopPromise<(HTTPResponseHead, ByteBuffer)>?
    private(set) var keepAlive = true
    private var head: HTTPResponseHead?
    private var body = ByteBuffer()

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.clear()
            keepAlive = head.isKeepAlive
        case .body(var buffer):
            body.writeBuffer(&buffer)
        case .end:
            let promise = self.promise
            self.promise = nil
            guard let head else { return fail(ChannelError.eof) }
            promise?.succeed((head, body))
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        keepAlive = false
        fail(ChannelError.eof)
    }

    private func fail(_ error: any Error) {
        let promise = self.promise
        self.promise = nil
        promise?.fail(error)
    }
}

/// Faraday on `LoopPool` (issue 48's experiment, not an adapter to ship): a call already on one of
/// the pools' loops uses that loop's connections, so that a stack run by a task on a loop's
/// executor never leaves the loop. GET without a body only.
struct LoopPoolAdapter: Adapter {
    let pools: [LoopPool]

    func call(_ env: Env) async throws(FaradayError) -> Completions {
        guard let pool = pools.first(where: { $0.executor.loop.inEventLoop }) else {
            throw FaradayError(.invalidRequest, "LoopPoolAdapter runs only on a pool's event loop")
        }
        let url = env.request.url
        var uri = url.path.isEmpty ? "/" : url.path
        if let query = url.query { uri += "?" + query }
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: uri)
        head.headers.add(name: "Host", value: pool.host)
        for field in env.request.headers { head.headers.add(name: field.name.rawName, value: field.value) }
        let response: (head: HTTPResponseHead, body: ByteBuffer)
        do {
            response = try await pool.exchange(head)
        } catch {
            throw FaradayError(.connectionFailed, "\(error)")
        }
        var fields = HTTPFields()
        for (name, value) in response.head.headers {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        var answer = env
        answer.response = ResponseData(
            status: HTTPResponse.Status(code: Int(response.head.status.code)),
            headers: fields,
            body: Data(response.body.readableBytesView)
        )
        return .buffered(answer)
    }
}
