import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension HTTPCache {
    /// The caller's own conditions and range (RFC 9111 §4.3.2, §3.4), in RFC 9110 §13.2.2's
    /// order: a fresh stored response answers the conditions (a 304, for a 2xx), then one byte
    /// range of it, or of the part stored (a 206); anything else goes to the server as the caller
    /// wrote it, and the answer to a plain range request is stored, joined to the part of the
    /// same representation stored.
    func answerOwnConditions(
        _ env: Env,
        entry: CacheEntry?,
        requestControl: CacheControl,
        now: Date
    ) async throws(FaradayError) -> Completions {
        let request = env.request
        let condition = CachePolicy.Condition(request.headers)
        if let entry, handler.policy.use(of: entry, requestControl: requestControl, now: now) == .fresh {
            let isSuccess = (200..<300).contains(entry.status.code)
            if let condition, isSuccess, condition.isNotModified(entry) {
                if let answer = await serve(entry, env, .hit, now: now, as: .notModified) { return answer }
            } else if let range = request.headers[.range], isSuccess {
                if !request.headers.contains(.ifRange), let part = await servePart(range, of: entry, env, now: now) {
                    return part
                }
            } else if !entry.isPartial, let answer = await serve(entry, env, .hit, now: now) {
                return answer
            }
        }
        guard request.headers.contains(.range), condition == nil, !request.headers.contains(.ifRange) else {
            return try await app.call(env).marked(.uncacheable)
        }
        let generation = handler.shared.generation.snapshot
        let requestDate = handler.now()
        let completions = try await app.call(env)
        // A range past the end says nothing of what is stored.
        if completions.head.response?.status == .rangeNotSatisfiable { return completions.marked(.uncacheable) }
        return await record(
            completions,
            for: env,
            requestControl,
            key: partition.key(for: request),
            replacing: entry,
            requestDate: requestDate,
            responseDate: handler.now(),
            generation: generation
        )
    }

    /// One byte range of a stored response, whole or partial (RFC 9110 §15.3.7), as a 206 with
    /// its current `Age`; `nil` when the entry does not hold every byte of that range or cannot
    /// read them. A range is read against the whole length, which a partial entry must know.
    func servePart(_ rangeHeader: String, of entry: CacheEntry, _ env: Env, now: Date) async -> Completions? {
        let held: Range<Int>
        let length: Int
        if let part = entry.heldRange {
            guard let completeLength = part.completeLength else { return nil }
            (held, length) = (part.range, completeLength)
        } else {
            guard entry.status == .ok, entry.headers[.contentRange] == nil, let count = entry.body.length else {
                return nil
            }
            (held, length) = (0..<count, count)
        }
        guard let range = CachePolicy.byteRange(rangeHeader, length: length),
            held.lowerBound <= range.lowerBound, range.upperBound <= held.upperBound,
            let body = entry.body.slice(range.lowerBound - held.lowerBound..<range.upperBound - held.lowerBound)
        else { return nil }
        var part = entry
        part.status = .partialContent
        part.body = body
        part.headers[.contentRange] = ContentRange(range, of: length).field
        part.headers[.contentLength] = String(range.count)
        return await serve(part, env, .hit, now: now)
    }
}
