import Foundation
import HTTPTypes

extension HTTPCache {
    /// The caller's own conditions and range (RFC 9111 §4.3.2, §3.4), in RFC 9110 §13.2.2's
    /// order: a fresh stored response answers the conditions (a 304, for a 2xx), then one byte
    /// range of it (a 206); anything else goes to the server as the caller wrote it.
    func answerOwnConditions(
        _ env: Env,
        entry: CacheEntry?,
        requestControl: CacheControl,
        now: Date
    ) async throws(FaradayError) -> Completions {
        let request = env.request
        if let entry, handler.policy.use(of: entry, requestControl: requestControl, now: now) == .fresh {
            let isSuccess = (200..<300).contains(entry.status.code)
            if let condition = CachePolicy.Condition(request.headers), isSuccess, condition.isNotModified(entry) {
                if let answer = serve(entry, env, .hit, now: now, as: .notModified) { return answer }
            } else if let range = request.headers[.range], isSuccess {
                if !request.headers.contains(.ifRange), let part = servePart(range, of: entry, env, now: now) {
                    return part
                }
            } else if let answer = serve(entry, env, .hit, now: now) {
                return answer
            }
        }
        return try await app.call(env).marked(.uncacheable)
    }

    /// One byte range of a complete stored response as a 206 (RFC 9110 §15.3.7), with its
    /// current `Age`; `nil` when the entry is not a complete 200 or cannot give that range.
    func servePart(_ rangeHeader: String, of entry: CacheEntry, _ env: Env, now: Date) -> Completions? {
        guard entry.status == .ok, entry.headers[.contentRange] == nil, let length = entry.body.length,
            let range = CachePolicy.byteRange(rangeHeader, length: length), let body = entry.body.slice(range)
        else { return nil }
        var part = entry
        part.status = .partialContent
        part.body = body
        part.headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(length)"
        part.headers[.contentLength] = String(range.count)
        return serve(part, env, .hit, now: now)
    }
}
