import Foundation
import HTTPTypes

extension HTTPCache {
    /// A plain `GET` when the store holds the first part of the representation (a `206`, or a
    /// download cut off): the rest is asked for with `Range` and `If-Range` (RFC 9111 §3.4), and
    /// the caller gets the whole as a `200`, the stored bytes first, which is stored whole when
    /// it ends. A `200` (the representation changed) is answered and stored as any miss; any
    /// other answer drops the part and asks again plainly.
    func resume(
        _ env: Env,
        _ requestControl: CacheControl,
        key: String,
        part: CacheEntry
    ) async throws(FaradayError) -> Completions {
        guard let (held, length) = part.heldRange, held.lowerBound == 0, let length, held.upperBound < length,
            let validator = CachePolicy.strongValidator(part.headers), let prefix = part.body.bytes()
        else { return try await fetch(env, requestControl, key: key, entry: nil) }
        let generation = handler.shared.generation.withLock { $0 }
        var attempt = env
        attempt.request.headers[.range] = "bytes=\(held.upperBound)-"
        attempt.request.headers[.ifRange] = validator
        let requestDate = handler.now()
        let completions = try await app.call(attempt)
        guard var response = completions.head.response else { return completions }
        var status = CacheStatus.miss
        if response.status == .partialContent {
            let range = CachePolicy.ContentRange(response.headers[.contentRange])
            guard range == CachePolicy.ContentRange(held.upperBound..<length, of: length),
                CachePolicy.sameRepresentation(part.headers, response.headers)
            else {
                try? await completions.drain()
                handler.store.removeEntries(for: key)
                return try await fetch(env, requestControl, key: key, entry: nil, generation: generation)
            }
            // The whole, as the caller asked for it: the stored bytes, then the server's.
            response.status = .ok
            response.headers[.contentRange] = nil
            response.headers[.contentLength] = String(length)
            var head = completions.head
            head.response = response
            completions.head = head
            completions.transformBody(Prepending(prefix))
            status = .resumed
        }
        return record(
            completions,
            for: env,
            requestControl,
            key: key,
            replacing: nil,
            requestDate: requestDate,
            responseDate: handler.now(),
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
