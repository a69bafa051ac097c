import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension HTTPCache {
    /// The server's answer, stored as it streams up when the rules allow (marked `status`, a miss
    /// unless said otherwise), else passed on (uncacheable), making what is stored for the URL out
    /// of date where it says so. A `206` joins the stored part of the same representation it
    /// touches (`EntryAssembly`); a body cut off halfway is kept as the part that arrived when a
    /// later request can resume from it.
    func record(
        _ completions: Completions,
        for env: Env,
        _ requestControl: CacheControl,
        key: String,
        replacing entry: CacheEntry?,
        requestDate: Date,
        responseDate: Date,
        generation: Int,
        as status: CacheStatus = .miss
    ) async -> Completions {
        let head = completions.head
        guard let response = head.response else { return completions }
        var refusal = handler.policy.refusal(
            request: head.request,  // as sent, with what the layers below added (Authorization…)
            requestControl: requestControl,
            response: response,
            now: responseDate,
            credentials: handler.isSharedByUsers ? partition : nil
        )
        // Credentials a layer below the cache added or changed are not in the key, which every
        // caller of the URL shares: only an answer anyone may have is stored under it.
        if refusal == nil, partition.hasCredentials(head.request), !CacheControl(response.headers).isPublic,
            partition.key(for: head.request) != partition.key(for: env.request)
        {
            refusal = "credentials added below the cache, and the response is not public"
        }
        // Stored only as the answer of this URL (not a redirect's last hop) and of these values
        // of its Vary headers (none added below the cache).
        let varying = CachePolicy.varyingHeaders(of: env.request, response: response.headers, partition)
        guard refusal == nil, CacheEntry.key(for: head.request.url) == CacheEntry.key(for: env.request.url),
            let varying, varying == CachePolicy.varyingHeaders(of: head.request, response: response.headers, partition)
        else {
            // A newer answer was seen (not a server error): what is stored for the URL is out of
            // date (§4.3.3).
            if entry != nil && response.status.code < 500
                || CachePolicy.forbiddenToStore(CacheControl(response.headers), status: response.status.code) != nil
            {
                handler.store.removeEntries(for: key)
            }
            return completions.marked(.uncacheable)
        }
        if await storedEntries(for: key).contains(where: { Set($0.varyingRequestHeaders.keys) != Set(varying.keys) }) {
            handler.store.removeEntries(for: key)  // the URL varies on other headers now
        }
        let base = CacheEntry(
            url: env.request.url,
            varyingRequestHeaders: varying,
            status: response.status,
            headers: CachePolicy.storable(response.headers),
            body: .empty,
            requestDate: requestDate,
            responseDate: responseDate
        )
        let isCurrent: @Sendable () -> Bool = { [shared = handler.shared] in
            generation == shared.generation.snapshot
        }
        // A part of the complete response stored, by the same validator: its fields update it (§3.4).
        if let entry, !entry.isPartial, response.status == .partialContent,
            CachePolicy.sameRepresentation(entry.headers, response.headers)
        {
            let updated = CachePolicy.updated(
                entry,
                with: response.headers,
                requestDate: requestDate,
                responseDate: responseDate
            )
            if isCurrent() { handler.store.store(updated, for: key) }
            return completions.marked(status)
        }
        // Joining a stored part reads its file: off an adapter's event loop.
        guard let assembly = await Offload.run({ EntryAssembly(base, joining: entry) }) else {
            return completions.marked(.uncacheable)
        }
        let recorder = BodyRecorder(
            writer: handler.store.makeWriter(for: key),
            limit: handler.maximumBodySize,
            prefix: assembly.prefix
        )
        return completions.marked(status).transformBody(recorder).onComplete { env in
            guard env.isFinal else { return }
            recorder.finishCall(storing: assembly, if: isCurrent())
        }.mapErrors { error in
            recorder.keepPart(of: assembly, if: isCurrent())
            return error
        }
    }
}
