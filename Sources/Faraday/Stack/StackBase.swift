/// The bottom of every built stack, just above the adapter: refuses a URL whose host could not be
/// sent as it is (`HostCheck`), whichever layer made the URL; encodes a value body that no
/// middleware encoded by its default encoding, and sets the body's content type when the request
/// has none (see ``RequestBody``).
struct StackBase: App {
    let adapter: any Adapter

    func call(_ env: Env) async throws(FaradayError) -> Completions {
        try HostCheck.check(env.request.url, method: env.request.method)
        guard env.requestHasPendingBody else { return try await adapter.call(env) }
        var env = env
        try env.request.encodePendingBody()
        return try await adapter.call(env)
    }
}
