import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The replay side of ``CassetteAdapter``: finding a recorded interaction for a request, and
/// answering with it.
extension CassetteAdapter {
    func takeInteraction(matching request: CassetteInteraction.Request) -> CassetteInteraction? {
        state.withLock { state in
            guard state.replays, let interactions = state.cassette?.interactions else { return nil }
            var last: Int?
            for (index, interaction) in interactions.enumerated() where matches(request, interaction.request) {
                if !state.used[index] {
                    state.used[index] = true
                    return interaction
                }
                last = index
            }
            return allowsPlaybackRepeats ? last.map { interactions[$0] } : nil
        }
    }

    private func matches(_ live: CassetteInteraction.Request, _ recorded: CassetteInteraction.Request) -> Bool {
        matchers.allSatisfy { matcher in
            switch matcher {
            case .method: live.method == recorded.method
            case .url: live.url == recorded.url
            case .path: Self.path(live.url) == Self.path(recorded.url)
            case .body: (live.body ?? Data()) == (recorded.body ?? Data())
            case .header(let name):
                Self.values(name, live.headers) == Self.values(name, recorded.headers)
            }
        }
    }

    /// The path of a recorded URL's text: up to its query, after its authority.
    private static func path(_ url: String) -> Substring {
        let beforeQuery = url[..<(url.firstIndex { $0 == "?" || $0 == "#" } ?? url.endIndex)]
        guard let scheme = beforeQuery.utf8.firstRange(of: "://".utf8) else { return beforeQuery }
        let afterScheme = beforeQuery[scheme.upperBound...]
        return afterScheme[(afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex)...]
    }

    private static func values(_ name: HTTPField.Name, _ headers: [[String]]) -> [String] {
        headers.filter { $0.first?.lowercased() == name.canonicalName }.compactMap { $0.last }
    }

    func replay(_ interaction: CassetteInteraction, _ env: Env) async throws(FaradayError) -> Completions {
        let recorded = interaction.response
        var head = env
        var fields = HTTPFields()
        for pair in recorded.headers where pair.count == 2 {
            if let name = HTTPField.Name(pair[0]) { fields.append(HTTPField(name: name, value: pair[1])) }
        }
        let status = HTTPResponse.Status(code: recorded.status, reasonPhrase: recorded.reason ?? "")
        head.response = ResponseData(status: status, headers: fields)
        head.response?.httpVersion = recorded.httpVersion
        let chunks = recorded.chunks ?? recorded.body.map { [CassetteInteraction.Chunk(body: $0, delay: 0)] } ?? []
        let truncation =
            recorded.isTruncated == true
            ? FaradayError(
                .connectionFailed,
                "The cassette \(file.lastPathComponent) holds this response only up to where the recording call stopped reading it.",
                method: env.request.method,
                url: env.request.url
            ) : nil
        guard env.request.options.streaming != nil else {
            if let truncation { throw truncation }
            head.response?.body = chunks.reduce(into: Data()) { $0.append($1.body) }
            return .buffered(consume head)
        }
        let scale: Double? =
            switch timing {
            case .immediate: nil
            case .recorded: 1
            case .scaled(let factor): factor
            }
        return .streamed(
            head: head,
            body: ResponseBody(
                stream: ByteStream(ReplayedChunks(chunks: chunks, scale: scale, env: env, truncation: truncation))
            )
        )
    }
}

/// A recorded stream's pieces, with their delays when the replay keeps time.
private struct ReplayedChunks: AsyncSequence, Sendable {
    let chunks: [CassetteInteraction.Chunk]
    let scale: Double?
    let env: Env
    /// Thrown after the last piece of a recording that stopped early.
    let truncation: FaradayError?

    struct AsyncIterator: AsyncIteratorProtocol {
        let replay: ReplayedChunks
        var index = 0

        mutating func next() async throws -> Data? {
            try replay.env.cancellation.check()
            guard index < replay.chunks.count else {
                if let truncation = replay.truncation { throw truncation }
                return nil
            }
            let chunk = replay.chunks[index]
            index += 1
            if let scale = replay.scale, chunk.delay > 0 {
                try await Task.sleep(for: .seconds(chunk.delay * scale))
            }
            return chunk.body
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(replay: self) }
}
