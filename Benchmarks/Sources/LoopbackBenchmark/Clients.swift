import AsyncHTTPClient
import BenchmarkStacks
import Faraday
import FaradayAsyncHTTPClient
import FaradayNIO
import Foundation
import NIOCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The clients compared: each raw client, then Faraday on its adapter with each stack.
enum Client: String, CaseIterable, Sendable {
    case rawAsyncHTTPClient
    case rawAsyncHTTPClientDelegate
    case faradayAsyncHTTPClientEmpty
    case faradayAsyncHTTPClientSix
    case faradayNIOEmpty
    case faradayNIOSix
    case rawAsyncHTTPClientOnLoop
    case rawAsyncHTTPClientChild
    case rawAsyncHTTPClientDelegateChild
    case rawAsyncHTTPClientDelegateBound
    case rawNIOOnLoop
    case faradayLoopPoolEmpty
    case faradayLoopPoolSix
    case faradayAsyncHTTPClientEmptyChild
    case faradayAsyncHTTPClientEmptyOnLoop
    case faradayAsyncHTTPClientSixOnLoop
    case rawURLSession
    case rawURLSessionDelegate
    case urlSessionAdapterAlone
    case faradayURLSessionEmpty
    case faradayURLSessionSix

    /// The clients of a full run; the others are experiments, run one at a time by name (they
    /// back issue 48's decision record, in Benchmarks/README.md's history).
    static let suite: [Client] = [
        .rawAsyncHTTPClient, .rawAsyncHTTPClientDelegate, .faradayAsyncHTTPClientEmpty, .faradayAsyncHTTPClientSix,
        .faradayNIOEmpty, .faradayNIOSix, .rawURLSession, .faradayURLSessionEmpty, .faradayURLSessionSix,
    ]

    var label: String {
        switch self {
        case .rawAsyncHTTPClient: "AsyncHTTPClient (raw)"
        case .rawAsyncHTTPClientDelegate: "AsyncHTTPClient, delegate API (raw)"
        case .faradayAsyncHTTPClientEmpty: "Faraday, empty stack, AsyncHTTPClientAdapter"
        case .faradayAsyncHTTPClientSix: "Faraday, 6 middleware, AsyncHTTPClientAdapter"
        case .faradayNIOEmpty: "Faraday, empty stack, NIOAdapter"
        case .faradayNIOSix: "Faraday, 6 middleware, NIOAdapter"
        case .rawAsyncHTTPClientOnLoop: "AsyncHTTPClient (raw), tasks preferring an event loop"
        case .rawAsyncHTTPClientChild: "AsyncHTTPClient (raw), each GET in a child task"
        case .rawAsyncHTTPClientDelegateChild: "AsyncHTTPClient, delegate API (raw), each GET in a child task"
        case .rawAsyncHTTPClientDelegateBound:
            "AsyncHTTPClient, delegate API (raw), the task and the request's channel on one event loop"
        case .rawNIOOnLoop: "SwiftNIO's HTTP/1.1 codec, a pool per event loop, the task on that loop (experiment)"
        case .faradayLoopPoolEmpty: "Faraday, empty stack, on that pool, the call's task on the loop (experiment)"
        case .faradayLoopPoolSix: "Faraday, 6 middleware, on that pool, the call's task on the loop (experiment)"
        case .faradayAsyncHTTPClientEmptyChild: "Faraday, empty stack, AsyncHTTPClientAdapter, each GET in a child task"
        case .faradayAsyncHTTPClientEmptyOnLoop:
            "Faraday, empty stack, AsyncHTTPClientAdapter, tasks preferring an event loop"
        case .faradayAsyncHTTPClientSixOnLoop:
            "Faraday, 6 middleware, AsyncHTTPClientAdapter, tasks preferring an event loop"
        case .rawURLSession: "URLSession (raw)"
        case .rawURLSessionDelegate: "URLSession, data delegate (raw)"
        case .urlSessionAdapterAlone: "URLSessionAdapter called directly, no connection or stack"
        case .faradayURLSessionEmpty: "Faraday, empty stack, URLSessionAdapter"
        case .faradayURLSessionSix: "Faraday, 6 middleware, URLSessionAdapter"
        }
    }

    /// The raw client a Faraday row is compared with (itself for a raw row).
    var raw: Client {
        switch self {
        case .rawAsyncHTTPClient, .rawAsyncHTTPClientDelegate, .faradayAsyncHTTPClientEmpty, .faradayAsyncHTTPClientSix,
            .faradayNIOEmpty, .faradayNIOSix, .rawAsyncHTTPClientOnLoop, .rawAsyncHTTPClientChild,
            .faradayAsyncHTTPClientEmptyOnLoop,
            .rawAsyncHTTPClientDelegateChild, .faradayAsyncHTTPClientEmptyChild, .faradayAsyncHTTPClientSixOnLoop,
            .rawAsyncHTTPClientDelegateBound, .rawNIOOnLoop, .faradayLoopPoolEmpty, .faradayLoopPoolSix:
            .rawAsyncHTTPClient
        case .rawURLSession, .rawURLSessionDelegate, .urlSessionAdapterAlone, .faradayURLSessionEmpty,
            .faradayURLSessionSix:
            .rawURLSession
        }
    }
}

/// One client set up against the server: it GETs a path (returning the body's length), streams
/// one (returning the bytes received), and downloads one to a file (returning the file's length).
struct Runner: Sendable {
    let get: @Sendable (String) async throws -> Int
    let stream: @Sendable (String) async throws -> Int
    let shutdown: @Sendable () async throws -> Void
    /// Only the raw AsyncHTTPClient client and Faraday's download to a file.
    var download: @Sendable (_ path: String, _ file: URL) async throws -> Int = { _, _ in throw LoopbackError.usage }

    /// The connections each AsyncHTTPClient client may keep to the server, raw and under the
    /// adapter alike: 64 as issue 22's protocol says ("64 connections allowed"), or `POOL`.
    /// (Runs before the fifth session of 2026-11-24 left both at AsyncHTTPClient's and the adapter's default, 8.)
    static let connectionsPerHost = ProcessInfo.processInfo.environment["POOL"].flatMap { Int($0) } ?? 64

    static func make(_ client: Client, base: URL) -> Runner {
        let asyncHTTPClientAdapter = {
            var configuration = AsyncHTTPClientAdapter.Configuration()
            configuration.maximumConnectionsPerHost = connectionsPerHost
            return AsyncHTTPClientAdapter(configuration: configuration)
        }
        let nioAdapter = { () -> any Adapter in
            guard #available(macOS 15.0, *) else {
                print("NIOAdapter needs macOS 15 (task executors)")
                exit(2)
            }
            var configuration = NIOAdapter.Configuration()
            configuration.maximumConnectionsPerHost = connectionsPerHost
            return NIOAdapter(configuration: configuration)
        }
        return switch client {
        case .rawAsyncHTTPClient: rawAsyncHTTPClient(base: base)
        case .rawAsyncHTTPClientDelegate: rawAsyncHTTPClientDelegate(base: base)
        case .rawURLSession: rawURLSession(base: base)
        case .rawURLSessionDelegate: rawURLSessionDelegate(base: base)
        case .urlSessionAdapterAlone: adapterAlone(URLSessionAdapter(), base: base)
        case .faradayAsyncHTTPClientEmpty: faraday(asyncHTTPClientAdapter(), stack: .empty, base: base)
        case .faradayAsyncHTTPClientSix: faraday(asyncHTTPClientAdapter(), stack: .six, base: base)
        case .faradayNIOEmpty: faraday(nioAdapter(), stack: .empty, base: base)
        case .faradayNIOSix: faraday(nioAdapter(), stack: .six, base: base)
        case .faradayURLSessionEmpty: faraday(URLSessionAdapter(), stack: .empty, base: base)
        case .faradayURLSessionSix: faraday(URLSessionAdapter(), stack: .six, base: base)
        case .rawAsyncHTTPClientOnLoop: rawAsyncHTTPClient(base: base).onLoop()
        case .rawAsyncHTTPClientChild: rawAsyncHTTPClient(base: base).inChild()
        case .rawAsyncHTTPClientDelegateChild: rawAsyncHTTPClientDelegate(base: base).inChild()
        case .rawAsyncHTTPClientDelegateBound: rawAsyncHTTPClientDelegateBound(base: base)
        case .rawNIOOnLoop: rawNIOOnLoop(base: base)
        case .faradayLoopPoolEmpty: faradayOnLoopPool(stack: .empty, base: base)
        case .faradayLoopPoolSix: faradayOnLoopPool(stack: .six, base: base)
        case .faradayAsyncHTTPClientEmptyChild: faraday(asyncHTTPClientAdapter(), stack: .empty, base: base).inChild()
        case .faradayAsyncHTTPClientEmptyOnLoop: faraday(asyncHTTPClientAdapter(), stack: .empty, base: base).onLoop()
        case .faradayAsyncHTTPClientSixOnLoop: faraday(asyncHTTPClientAdapter(), stack: .six, base: base).onLoop()
        }
    }

    /// This runner with each GET in a child task of its own (an experiment: what a task per call costs).
    func inChild() -> Runner {
        let get = self.get
        return Runner(
            get: { path in
                try await withThrowingTaskGroup(of: Int.self) { group in
                    group.addTask { try await get(path) }
                    return try await group.next() ?? 0
                }
            },
            stream: stream,
            shutdown: shutdown
        )
    }

    /// This runner with each GET in a task that prefers one of NIO's event loops as its executor
    /// (an experiment: the caller's code on the thread where AsyncHTTPClient's callbacks arrive).
    func onLoop() -> Runner {
        let get = self.get
        return Runner(
            get: { path in try await withTaskExecutorPreference(EventLoopTaskExecutor.next()) { try await get(path) } },
            stream: stream,
            shutdown: shutdown
        )
    }

    /// AsyncHTTPClient's defaults with the adapter's redirect, decompression and pool settings (no
    /// redirects, no decompression, the same connections per host). It keeps AsyncHTTPClient's
    /// default tracer and connection-establishment retries, which the adapter turns off.
    private static func makeHTTPClient() -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .disabled
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = connectionsPerHost
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    /// AsyncHTTPClient's async API.
    private static func rawAsyncHTTPClient(base: URL) -> Runner {
        let http = makeHTTPClient()
        let prefix = base.absoluteString
        return Runner(
            get: { path in
                let response = try await http.execute(HTTPClientRequest(url: prefix + path), timeout: .seconds(30))
                return try await response.body.collect(upTo: 1 << 26).readableBytes
            },
            stream: { path in
                let response = try await http.execute(HTTPClientRequest(url: prefix + path), timeout: .seconds(600))
                var total = 0
                for try await part in response.body { total += part.readableBytes }
                return total
            },
            shutdown: { try await http.shutdown() },
            // AsyncHTTPClient's own delegate for a download to a file.
            download: { path, file in
                let delegate = try FileDownloadDelegate(path: file.path)
                let request = try HTTPClient.Request(url: prefix + path)
                let progress = try await http.execute(request: request, delegate: delegate).get()
                return progress.receivedBytes
            }
        )
    }

    /// AsyncHTTPClient's `HTTPClientResponseDelegate` API with its own collecting delegate: what
    /// AsyncHTTPClientAdapter is built on.
    private static func rawAsyncHTTPClientDelegate(base: URL) -> Runner {
        let http = makeHTTPClient()
        let prefix = base.absoluteString
        return Runner(
            get: { path in
                let request = try HTTPClient.Request(url: prefix + path)
                return try await http.execute(request: request, delegate: ResponseAccumulator(request: request)).get()
                    .body?.readableBytes ?? 0
            },
            stream: { _ in throw LoopbackError.usage },
            shutdown: { try await http.shutdown() }
        )
    }

    /// The delegate API with the task and the request on one event loop (issue 48's experiment):
    /// the task prefers the loop's executor, and `eventLoop: .delegateAndChannel(on:)` asks
    /// AsyncHTTPClient for a connection of that loop and calls the delegate there, so that the
    /// caller, the pool and the callbacks need no other thread, if the pool keeps to the loop.
    private static func rawAsyncHTTPClientDelegateBound(base: URL) -> Runner {
        let http = makeHTTPClient()
        let prefix = base.absoluteString
        return Runner(
            get: { path in
                let executor = EventLoopTaskExecutor.next()
                return try await withTaskExecutorPreference(executor) {
                    let request = try HTTPClient.Request(url: prefix + path)
                    return try await http.execute(
                        request: request,
                        delegate: ResponseAccumulator(request: request),
                        eventLoop: .delegateAndChannel(on: executor.loop)
                    ).get().body?.readableBytes ?? 0
                }
            },
            stream: { _ in throw LoopbackError.usage },
            shutdown: { try await http.shutdown() }
        )
    }

    /// `LoopPool`: each GET on a loop taken in turn, its task on that loop's executor.
    private static func rawNIOOnLoop(base: URL) -> Runner {
        let pools = LoopPool.make(host: base.host ?? "127.0.0.1", port: base.port ?? 80)
        let turn = TurnCounter()
        let prefix = base.path.hasSuffix("/") ? base.path : base.path + "/"
        return Runner(
            get: { path in
                let pool = pools[turn.next() % pools.count]
                return try await withTaskExecutorPreference(pool.executor) { try await pool.get(prefix + path) }
            },
            stream: { _ in throw LoopbackError.usage },
            shutdown: { for pool in pools { await pool.shutdown() } }
        )
    }

    /// Faraday with `LoopPoolAdapter`: each call's task on a loop taken in turn, where the adapter
    /// finds that loop's connections.
    private static func faradayOnLoopPool(stack: BenchmarkStack, base: URL) -> Runner {
        let pools = LoopPool.make(host: base.host ?? "127.0.0.1", port: base.port ?? 80)
        let turn = TurnCounter()
        let faraday = faraday(LoopPoolAdapter(pools: pools), stack: stack, base: base)
        let get = faraday.get
        return Runner(
            get: { path in
                let pool = pools[turn.next() % pools.count]
                return try await withTaskExecutorPreference(pool.executor) { try await get(path) }
            },
            stream: { _ in throw LoopbackError.usage },
            shutdown: {
                try await faraday.shutdown()
                for pool in pools { await pool.shutdown() }
            }
        )
    }

    /// URLSession's async `data(from:)`, and its data delegate for streaming (Linux has no `bytes(for:)`).
    private static func rawURLSession(base: URL) -> Runner {
        let session = URLSession(configuration: .ephemeral)
        return Runner(
            get: { path in
                guard let url = URL(string: path, relativeTo: base) else { throw LoopbackError.badURL(path) }
                return try await session.data(from: url).0.count
            },
            stream: downloadThroughADelegate(base: base),
            shutdown: { session.invalidateAndCancel() }
        )
    }

    /// Raw URLSession's streamed download: a data delegate that counts the bytes (Linux has no
    /// `bytes(for:)`).
    private static func downloadThroughADelegate(base: URL) -> @Sendable (String) async throws -> Int {
        { path in
            guard let url = URL(string: path, relativeTo: base) else { throw LoopbackError.badURL(path) }
            return try await CollectingDelegate.download(url)
        }
    }

    /// URLSession through a data delegate on a serial operation queue, as URLSessionAdapter uses
    /// it (an experiment: on Linux each response, body part and completion is an operation on the
    /// delegate queue, where `data(from:)` completes inline with none). `UNDERLYING=1` runs the
    /// operation queue on a serial dispatch queue of its own; `INLINE=1` uses `data(for:delegate:)`
    /// with a task delegate instead (the response through the delegate, the body whole at the end);
    /// `STATELESS=cookies+cache+policy+credentials` (any of the four) turns off the stores the
    /// adapter turns off.
    private static func rawURLSessionDelegate(base: URL) -> Runner {
        let delegate = CollectingDelegate()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let underlying = DispatchQueue(label: "delegate")  // the operation queue keeps it
        if ProcessInfo.processInfo.environment["UNDERLYING"] != nil { queue.underlyingQueue = underlying }
        let configuration = URLSessionConfiguration.ephemeral
        let stateless = ProcessInfo.processInfo.environment["STATELESS"] ?? ""
        if stateless.contains("cookies") {
            configuration.httpCookieStorage = nil
            configuration.httpShouldSetCookies = false
            configuration.httpCookieAcceptPolicy = .never
        }
        if stateless.contains("cache") { configuration.urlCache = nil }
        if stateless.contains("policy") { configuration.requestCachePolicy = .reloadIgnoringLocalCacheData }
        if stateless.contains("credentials") { configuration.urlCredentialStorage = nil }
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
        let inline = ProcessInfo.processInfo.environment["INLINE"] != nil
        return Runner(
            get: { path in
                guard let url = URL(string: path, relativeTo: base) else { throw LoopbackError.badURL(path) }
                if inline { return try await session.data(for: URLRequest(url: url), delegate: delegate).0.count }
                return try await delegate.run(session.dataTask(with: url))
            },
            stream: downloadThroughADelegate(base: base),
            shutdown: { session.invalidateAndCancel() }
        )
    }

    /// An adapter called directly with an env, no connection, stack or response handle (an
    /// experiment: what the adapter costs by itself).
    private static func adapterAlone(_ adapter: any Adapter, base: URL) -> Runner {
        Runner(
            get: { path in
                guard let url = URL(string: path, relativeTo: base) else { throw LoopbackError.badURL(path) }
                let completions = try await adapter.call(Env(request: Request(method: .get, url: url)))
                return completions.head.response?.body.count ?? 0
            },
            stream: { _ in throw LoopbackError.usage },
            shutdown: {}
        )
    }

    private static func faraday(_ adapter: any Adapter, stack: BenchmarkStack, base: URL) -> Runner {
        // MIDDLEWARE=Cookies (a name of BenchmarkStack.namedSix) puts that one alone in the six's place.
        let alone = ProcessInfo.processInfo.environment["MIDDLEWARE"].map { name in
            guard let handler = BenchmarkStack.namedSix.first(where: { $0.name == name })?.handler else {
                print("MIDDLEWARE=\(name) names none of \(BenchmarkStack.namedSix.map(\.name))")
                exit(2)
            }
            return handler
        }
        let connection = Connection(url: base) { builder in
            if stack == .six, let alone {
                builder.use(alone)
            } else {
                stack.install(in: &builder)
            }
            builder.adapter = adapter
        }
        return Runner(
            get: { path in try await connection.get(path).value.body.count },
            stream: { path in
                var total = 0
                for try await env in connection.get(path, configure: { $0.options.streaming = .chunks }).completions {
                    total += env.body.count
                }
                return total
            },
            shutdown: {
                try await (adapter as? AsyncHTTPClientAdapter)?.shutdown()
                if #available(macOS 15.0, *) { try await (adapter as? NIOAdapter)?.shutdown() }
            },
            download: { path, file in
                _ = try await connection.download(path, to: file).value
                return try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int ?? 0
            }
        )
    }
}

/// A data delegate that counts each task's body, keeps none of it, and hands the count over at
/// completion: raw URLSession's streamed download, and the `rawURLSessionDelegate` experiment.
final class CollectingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // `@unchecked Sendable`: the transfers are touched only with the lock held.
    private struct Transfer {
        var received = 0
        let continuation: CheckedContinuation<Int, any Error>
    }
    private let lock = NSLock()
    private var transfers: [ObjectIdentifier: Transfer] = [:]

    /// `body` with the lock held (NSLock's `withLock` needs macOS 14).
    private func locked<Result>(_ body: () -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    /// A download of `url` on a session of its own, its delegate calls on a serial queue.
    static func download(_ url: URL) async throws -> Int {
        let delegate = CollectingDelegate()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: queue)
        defer { session.finishTasksAndInvalidate() }
        return try await delegate.run(session.dataTask(with: url))
    }

    /// Starts `task` and returns its body's length when it completes.
    func run(_ task: URLSessionTask) async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            locked { transfers[ObjectIdentifier(task)] = Transfer(continuation: continuation) }
            task.resume()
        }
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        locked { transfers[ObjectIdentifier(dataTask)]?.received += data.count }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let transfer = locked({ transfers.removeValue(forKey: ObjectIdentifier(task)) }) else { return }
        if let error {
            transfer.continuation.resume(throwing: error)
        } else {
            transfer.continuation.resume(returning: transfer.received)
        }
    }
}

enum LoopbackError: Error, CustomStringConvertible {
    case badURL(String)
    case shortBody(expected: Int, received: Int)
    case usage

    var description: String {
        switch self {
        case .badURL(let path): "cannot make a URL of \(path)"
        case .shortBody(let expected, let received): "expected \(expected) bytes, received \(received)"
        case .usage:
            """
            usage: LoopbackBenchmark requests BASE_URL [COUNT] [ROUNDS] [CLIENT]
                   LoopbackBenchmark stream BASE_URL CLIENT [BYTES] [ROUNDS]
                   LoopbackBenchmark download BASE_URL CLIENT [BYTES] [ROUNDS]
                   LoopbackBenchmark label CLIENT
                   LoopbackBenchmark document
            clients: \(Client.allCases.map(\.rawValue).joined(separator: ", "))
            """
        }
    }
}

/// Hands out turns to concurrent callers (the loops taken in turn).
final class TurnCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value &+= 1
        return value
    }
}
