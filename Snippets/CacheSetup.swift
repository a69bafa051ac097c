// Caching: HTTPCache with a store, what it did for a call, and the request's own directives.
// snippet.hide
import Faraday
import Foundation

// snippet.show

// snippet.setup
// A folder of the user's own: ~/Library/Caches on Apple platforms, $XDG_CACHE_HOME or ~/.cache
// on Linux; never a folder other users may write in, such as /tmp.
let caches = try FileManager.default.url(for: .cachesDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
    .appending(path: "com.example.app/api-cache", directoryHint: .isDirectory)
let store = try DiskCacheStore(directory: caches, capacity: 100 << 20)  // refuses a folder others could write
let api = try Connection(url: "https://api.example.com") { builder in
    builder.use(DecodeJSON.Handler())  // above the cache, so that hits are decoded too
    builder.use(FollowRedirects.Handler())  // each hop is cached under its own URL
    builder.use(HTTPCache.Handler(store: store))
    builder.use(Retry.Handler())  // a hit costs no attempt; a miss is retried as a whole
    // snippet.hide
    builder.adapter = TestAdapter()
    // snippet.show
}

// snippet.status
let catalog = try await api.get("catalog").value
switch catalog.cacheStatus {
case .hit?: print("from the store, the server was not asked")
case .revalidated?: print("the server said 304: the stored body was served")
case .stale?: print("served stale (max-stale, stale-if-error or stale-while-revalidate)")
case .resumed?: print("the first part from the store, the rest from the server (Range, If-Range)")
case .miss?, .uncacheable?, nil: print("from the server")
}

// snippet.directives
// Accept an answer up to ten minutes stale rather than wait for the network.
_ = try await api.get("catalog", headers: [.cacheControl: "max-stale=600"]).value
// Ask the server even if a fresh answer is stored (it is revalidated when it has a validator).
_ = try await api.get("catalog", headers: [.cacheControl: "no-cache"]).value
// Offline: answer from the store or with 504 Gateway Timeout, never the network.
let offline = try await api.get("catalog", headers: [.cacheControl: "only-if-cached"]).value
print(offline.status == .gatewayTimeout ? "not stored" : "stored")

// snippet.logout
api.reset()  // empties the store along with the cookie jar and the credentials
