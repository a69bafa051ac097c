import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Records real interactions to a ``Cassette`` file and replays them without a network, as Ruby's
/// VCR does: tests run against answers a real server once gave.
///
/// ```swift
/// let cassette = CassetteAdapter(
///     cassette: URL(fileURLWithPath: "Tests/Cassettes/users.json"),
///     recordingWith: AsyncHTTPClientAdapter()
/// )
/// let api = try Connection(url: "https://api.example.com") { $0.adapter = cassette }
/// ```
///
/// The first run (the file missing, mode ``RecordMode/once``) sends every request through the
/// real adapter and appends each interaction; later runs answer from the file, and a request it
/// does not hold fails with ``FaradayError/Code/noStubMatched``. Credentials and cookies are
/// redacted on write with ``Redaction``'s rules (the same as ``HTTPLogger``'s; add your names, or
/// a `filter`), gzip and deflate bodies decoded first; requests are matched on their redacted form, so a test that sends a real token
/// still matches a cassette that holds `[REDACTED]`. A streamed response keeps its pieces, in
/// order, with the time between them, so that a replay gives the same completions (and, with
/// ``ReplayTiming/recorded``, the same rhythm).
///
/// Every exchange that reaches the adapter is recorded, as VCR records them: a buffered response
/// as soon as it arrives, a streamed one when it ends or is dropped (with the pieces read until
/// then, marked truncated: a replay that reads past them fails), so that the attempts a ``Retry`` discards are on the cassette too and a replay answers
/// them in the order they were recorded. A transfer that failed is not recorded.
public final class CassetteAdapter: Adapter {
    /// When to record and when to replay (VCR's modes).
    public enum RecordMode: Sendable {
        /// Record when the cassette file does not exist; otherwise replay only.
        case once
        /// Replay what the cassette holds, record what it does not.
        case newEpisodes
        /// Replay only.
        case none
        /// Record everything again, replacing the cassette; never replay.
        case all
    }

    /// What must be equal for a request to take a recorded interaction.
    public enum Matcher: Sendable, Hashable {
        /// The method.
        case method
        /// The whole URL (redacted), query included.
        case url
        /// The URL's path only.
        case path
        /// The body (redacted).
        case body
        /// The value of a header (redacted).
        case header(HTTPField.Name)
    }

    /// How fast a streamed response is replayed.
    public enum ReplayTiming: Sendable {
        /// Every piece at once.
        case immediate
        /// With the recorded time between pieces.
        case recorded
        /// With the recorded times multiplied by a factor.
        case scaled(Double)
    }

    struct State {
        var cassette: Cassette?
        var used: [Bool] = []
        var isLoaded = false
        var records = false
        var replays = true
    }

    /// The cassette file.
    public let file: URL
    /// The mode.
    public let mode: RecordMode
    /// What a request is matched on.
    public let matchers: [Matcher]
    /// What is hidden on write.
    public let redaction: Redaction
    /// How fast streamed responses are replayed.
    public let timing: ReplayTiming
    /// Whether an interaction may answer again once every matching one has been used.
    public let allowsPlaybackRepeats: Bool
    private let recorder: any Adapter
    private let filter: (@Sendable (inout CassetteInteraction) -> Void)?
    /// The cassette and what has been replayed, under a lock (also read by the replay side).
    let state = Locked(State())

    /// Creates an adapter over the cassette at `file`.
    ///
    /// - Parameters:
    ///   - file: the cassette (JSON); made when the first interaction is recorded.
    ///   - mode: when to record and replay.
    ///   - adapter: the real adapter that records.
    ///   - matchers: what must be equal for a request to take an interaction.
    ///   - redaction: what is hidden on write (and on the requests matched against it).
    ///   - timing: how fast streamed responses are replayed.
    ///   - allowsPlaybackRepeats: let an interaction answer again once every match was used.
    ///   - filter: changes each interaction before it is written (to hide more, say).
    public init(
        cassette file: URL,
        mode: RecordMode = .once,
        recordingWith adapter: any Adapter,
        matchers: [Matcher] = [.method, .url, .body],
        redaction: Redaction = Redaction(),
        timing: ReplayTiming = .immediate,
        allowsPlaybackRepeats: Bool = false,
        filter: (@Sendable (inout CassetteInteraction) -> Void)? = nil
    ) {
        self.file = file
        self.mode = mode
        self.recorder = adapter
        self.matchers = matchers
        self.redaction = redaction
        self.timing = timing
        self.allowsPlaybackRepeats = allowsPlaybackRepeats
        self.filter = filter
    }

    /// The interactions the cassette holds now.
    public var interactions: [CassetteInteraction] { state.withLock { $0.cassette?.interactions ?? [] } }

    // MARK: Adapter

    /// The recording adapter's threads, unless the cassette only replays: a recorded call runs
    /// on them.
    public func ownsCurrentThread() -> Bool { mode != .none && recorder.ownsCurrentThread() }

    public func call(_ env: Env) async throws(FaradayError) -> Completions {
        var env = env
        try loadIfNeeded()
        // The body is needed to match and to record: a stream is read here, within the limit.
        let body = try await env.request.body.collect(upTo: env.request.options.maxBufferedBodySize)
        if env.request.body.bytesInMemory == nil {
            env.request.body = .bytes(body, contentType: env.request.body.contentType)
        }
        let recorded = record(of: env.request, body: body)
        if let interaction = takeInteraction(matching: recorded) {
            return try await replay(interaction, env)
        }
        guard state.withLock({ $0.records }) else {
            throw FaradayError(
                .noStubMatched,
                "The cassette \(file.lastPathComponent) holds no interaction for \(recorded.method) \(recorded.url) (mode \(mode)); record it with mode .newEpisodes or .all.",
                method: env.request.method,
                url: env.request.url
            )
        }
        let started = ContinuousClock.now
        let tap = ChunkTap(started: started)
        let streams = env.request.options.streaming != nil
        let completions = try await recorder.call(env)
        // The head as the adapter gave it: a layer above may rewrite it (Decompression removes
        // Content-Encoding) before the completions reach the hook below.
        guard let response = completions.head.response else { return completions }
        guard streams else {
            // Recorded as soon as it is here: a layer above may discard it (a retry's 503), and a
            // replay must answer that attempt too, in its turn.
            var body = Data()
            while let completion = try await completions.next() {
                body.append(completion.body)
                guard completion.isFinal else { continue }
                try append(recorded, response: response, chunks: [(body, 0)], streamed: false)
                var whole = completion
                whole.response?.body = body
                return .buffered(consume whole)
            }
            throw FaradayError(
                .cancelled,
                "The request was cancelled.",
                method: env.request.method,
                url: env.request.url
            )
        }
        return
            completions
            .transformBody(tap)
            .onComplete { [self] completion in
                guard completion.isFinal, completion.error == nil else { return }
                try self.append(recorded, response: response, chunks: tap.chunks, streamed: true)
            }
            .mapErrors { [self] error in
                // Dropped before its end (a retry's discarded attempt, a loop left early): kept,
                // marked truncated, with the pieces read until then. (A cassette that cannot be
                // written here fails no call: the call has ended already.) A failed transfer is
                // not recorded.
                if error.code == .cancelled {
                    try? self.append(recorded, response: response, chunks: tap.chunks, streamed: true, truncated: true)
                }
                return error
            }
    }

    // MARK: Recording

    private func loadIfNeeded() throws(FaradayError) {
        let isLoaded = state.withLock { $0.isLoaded }
        guard !isLoaded else { return }
        let cassette = mode == .all ? nil : try Cassette.load(from: file)
        state.withLock { state in
            guard !state.isLoaded else { return }
            state.isLoaded = true
            state.cassette = cassette
            state.used = Array(repeating: false, count: cassette?.interactions.count ?? 0)
            switch mode {
            case .once: state.records = cassette == nil
            case .newEpisodes: state.records = true
            case .none: state.records = false
            case .all:
                state.records = true
                state.replays = false
            }
        }
    }

    private func record(of request: Request, body: Data) -> CassetteInteraction.Request {
        let contentType = request.headers[.contentType] ?? request.body.contentType
        return CassetteInteraction.Request(
            method: request.method.rawValue,
            url: redaction.redacting(request.url),
            headers: redaction.redact(request.headers).map { [$0.name.rawName, $0.value] },
            storedBody: body.isEmpty ? nil : CassetteBody(redactedBody(body, contentType: contentType))
        )
    }

    /// The body with credential fields hidden when it is JSON or a form; other bytes as they are.
    private func redactedBody(_ body: Data, contentType: String?) -> Data {
        guard case .text = CassetteBody(body),
            let redacted = redaction.redactBody(body, contentType: contentType.map(Self.mediaType)),
            redacted.contains(redaction.replacement)
        else { return body }
        return Data(redacted.utf8)
    }

    private static func mediaType(_ contentType: String) -> String {
        contentType.split(separator: ";").first.map { $0.trimmingWhitespace().lowercased() } ?? ""
    }

    private func append(
        _ request: CassetteInteraction.Request,
        response: ResponseData,
        chunks: [(Data, Double)],
        streamed: Bool,
        truncated: Bool = false
    ) throws(FaradayError) {
        var headers = redaction.redact(response.headers)
        var chunks = chunks
        var whole = chunks.reduce(into: Data()) { $0.append($1.0) }
        // An encoded body cannot be redacted as it is: it is kept decoded, without its encoding.
        if let encoding = headers[.contentEncoding]?.lowercased(), encoding != "identity" {
            guard let coding = ContentCoding(encoding), coding.isAvailable else {
                throw FaradayError(
                    .unsupportedOption,
                    "The response is encoded with \(encoding), which the cassette cannot decode to redact it; ask for identity or gzip."
                )
            }
            let decoder = try ContentDecoder(coding: coding, limits: Decompression.Limits())
            whole = try decoder.decode(whole) + decoder.finish()
            chunks = [(whole, chunks.first?.1 ?? 0)]
            headers[.contentEncoding] = nil
            if headers.contains(.contentLength) { headers[.contentLength] = String(whole.count) }
        }
        var recorded = CassetteInteraction.Response(
            status: response.status.code,
            reason: response.status.reasonPhrase,
            headers: [],
            httpVersion: response.httpVersion,
            isTruncated: truncated ? true : nil
        )
        let body = redactedBody(whole, contentType: response.headers[.contentType])
        if streamed && body == whole {
            recorded.chunks = chunks.map { CassetteInteraction.Chunk(body: $0.0, delay: $0.1) }
        } else if streamed {
            // A stream that carried a secret is kept as one redacted piece: safe rather than faithful.
            recorded.chunks = [CassetteInteraction.Chunk(body: body, delay: 0)]
        } else {
            if body.count != whole.count, headers.contains(.contentLength) {
                headers[.contentLength] = String(body.count)
            }
            recorded.body = whole.isEmpty ? nil : body
        }
        recorded.headers = headers.map { [$0.name.rawName, $0.value] }
        var interaction = CassetteInteraction(request: request, response: recorded, recordedAt: Date())
        filter?(&interaction)
        // Saved under the lock, so that two calls recording at once cannot write an older
        // cassette over a newer one.
        try state.withLock { state throws(FaradayError) in
            var cassette = state.cassette ?? Cassette()
            cassette.interactions.append(interaction)
            state.cassette = cassette
            state.used.append(true)
            try cassette.save(to: file)
        }
    }
}
