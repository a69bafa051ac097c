import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension HTTPCache {
    /// A plain `GET` when the store holds the first part of the representation (a `206`, or a
    /// download cut off): the rest is asked for with `Range` and `If-Range` (RFC 9111 §3.4), and
    /// the caller gets the whole as a `200`, the stored bytes first, which is stored whole when
    /// it ends. A `200` (the representation changed) is answered and stored as any miss; any
    /// other answer (another range, a 416) drops the part and asks again plainly, but for a
    /// server error, which is passed on and leaves the part for the next try.
    func resume(
        _ env: Env,
        _ requestControl: CacheControl,
        key: String,
        part: CacheEntry
    ) async throws(FaradayError) -> Completions {
        let generation = handler.shared.generation.snapshot
        guard let (held, length) = part.heldRange, held.lowerBound == 0, let length, held.upperBound < length,
            let validator = part.headers.strongValidator, let prefix = await Offload.run({ part.body.bytes() })
        else { return try await fetch(env, requestControl, key: key, entry: nil, generation: generation) }
        var attempt = env
        attempt.request.headers[.range] = "bytes=\(held.upperBound)-"
        attempt.request.headers[.ifRange] = validator
        let requestDate = handler.now()
        let completions = try await app.call(attempt)
        guard let response = completions.head.response else { return completions }
        let responseDate = handler.now()
        var status = CacheStatus.miss
        switch response.status {
        case .ok: break  // the whole, maybe of a new representation
        case .partialContent
        where ContentRange(response.headers[.contentRange]) == ContentRange(held.upperBound..<length, of: length)
            && CachePolicy.sameRepresentation(part.headers, response.headers):
            // The whole, as the caller asked for it: the stored part's fields updated by the
            // 206's (which may leave out Content-Type and the like, RFC 9110 §15.3.7), the stored
            // bytes, then the server's.
            var whole = CachePolicy.updated(
                part,
                with: response.headers,
                requestDate: requestDate,
                responseDate: responseDate
            ).headers
            whole[.contentRange] = nil
            whole[.contentLength] = String(length)
            var head = completions.head
            head.response = ResponseData(status: .ok, headers: whole, body: response.body)
            completions.head = head
            completions.transformBody(Prepending(prefix))
            status = .resumed
        default:
            // A server error says nothing of the part, which stays for the next try.
            if response.status.code >= 500 { return completions.marked(.uncacheable) }
            // Another range, a 416: the part is of no use.
            try? await completions.drain()
            handler.store.removeEntries(for: key)
            return try await fetch(env, requestControl, key: key, entry: nil, generation: generation)
        }
        return await record(
            completions,
            for: env,
            requestControl,
            key: key,
            replacing: nil,
            requestDate: requestDate,
            responseDate: responseDate,
            generation: generation,
            as: status
        )
    }
}

/// Puts stored bytes before a response's own, for the caller of a resumed download.
private final class Prepending: BodyTransform {
    private let prefix: Locked<Data?>

    init(_ prefix: Data) { self.prefix = Locked(prefix) }

    func transform(_ chunk: Data) -> Data {
        guard let prefix = take() else { return chunk }
        return prefix + chunk
    }

    func finish() -> Data { take() ?? Data() }

    private func take() -> Data? {
        prefix.withLock { prefix in
            defer { prefix = nil }
            return prefix
        }
    }
}
