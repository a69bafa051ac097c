import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension HTTPCache {
    /// A `HEAD` (RFC 9111 §4.3.5): answered from a fresh stored `GET` response; otherwise sent as
    /// it is, and a 200 updates the stored response it describes (the same validators and
    /// `Content-Length`), which then answers, or makes the URL's stored responses out of date.
    /// A `HEAD` with its own conditions or range goes to the server untouched.
    func head(_ env: Env, _ requestControl: CacheControl) async throws(FaradayError) -> Completions {
        let request = env.request
        let key = partition.key(for: request)
        let hasOwnConditions = [HTTPField.Name.ifNoneMatch, .ifModifiedSince, .range, .ifMatch, .ifUnmodifiedSince]
            .contains { request.headers.contains($0) }
        let requestDate = handler.now()
        let entry =
            hasOwnConditions
            ? nil : await storedEntries(for: key).first { !$0.isPartial && CachePolicy.matches($0, request, partition) }
        if let entry, handler.policy.use(of: entry, requestControl: requestControl, now: requestDate) == .fresh,
            let hit = await serve(entry, env, .hit, now: requestDate, as: .head)
        {
            return hit
        }
        if requestControl.onlyIfCached { return Self.notStored(env) }
        let generation = handler.shared.generation.snapshot
        let completions = try await app.call(env)
        let head = completions.head
        guard let entry, let response = head.response, response.status == .ok else {
            return completions.marked(.uncacheable)
        }
        guard CachePolicy.describes(entry, headResponse: response.headers),
            CachePolicy.forbiddenToStore(CacheControl(response.headers), status: 200) == nil
        else {
            handler.store.removeEntries(for: key)  // another representation now, or not to be kept
            return completions.marked(.uncacheable)
        }
        try? await completions.drain()  // the layers below see their end
        let responseDate = handler.now()
        let updated = CachePolicy.updated(
            entry,
            with: response.headers,
            requestDate: requestDate,
            responseDate: responseDate
        )
        if generation == handler.shared.generation.withLock({ $0 }) { handler.store.store(updated, for: key) }
        let cookies = CachePolicy.cookieFields(of: response.headers)
        return await serve(updated, head, .revalidated, now: responseDate, as: .head, setting: cookies)
            ?? .buffered(head)
    }

    /// Any other method: sent as it is. A successful unsafe one makes stored responses out of
    /// date (§4.4); a `POST`'s response with explicit freshness and its own URL as
    /// `Content-Location` is stored to answer later `GET`s (RFC 9110 §9.3.3).
    func unsafe(_ env: Env, _ requestControl: CacheControl) async throws(FaradayError) -> Completions {
        let request = env.request
        let generation = handler.shared.generation.snapshot
        let requestDate = handler.now()
        let completions = try await app.call(env)
        guard !Self.safeMethods.contains(request.method) else { return completions.marked(.uncacheable) }
        invalidate(after: request, completions.head.response)
        guard request.method == .post else { return completions.marked(.uncacheable) }
        return await record(
            completions,
            for: env,
            requestControl,
            key: partition.key(for: request),
            replacing: nil,
            requestDate: requestDate,
            responseDate: handler.now(),
            generation: generation
        )
    }

    private static let safeMethods: Set<HTTPRequest.Method> = [.get, .head, .options, .trace]

    /// RFC 9111 §4.4: a successful unsafe request makes the stored responses of its URL (and of
    /// its `Location` and `Content-Location` on the same origin) out of date: those stored for
    /// requests without credentials and for requests with its own (another user's entries are
    /// out of this cache's reach, as in a browser's other partition).
    private func invalidate(after request: Request, _ response: ResponseData?) {
        guard let response, (200..<400).contains(response.status.code) else { return }
        removeEntries(of: request.url, request)
        let origin = Origin(request.url)
        for name in [HTTPField.Name.location, .contentLocation] {
            guard let value = response.headers[name],
                let url = URL(string: value, relativeTo: request.url)?.absoluteURL,
                Origin(url) == origin
            else { continue }
            removeEntries(of: url, request)
        }
    }

    private func removeEntries(of url: URL, _ request: Request) {
        let anonymous = CacheEntry.key(for: url)
        handler.store.removeEntries(for: anonymous)
        let own = partition.key(for: url, request)
        if own != anonymous { handler.store.removeEntries(for: own) }
    }
}
