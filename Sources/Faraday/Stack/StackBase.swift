/// The bottom of every built stack, just above the adapter: encodes a value body that no
/// middleware encoded by its default encoding, and sets the body's content type when the request
/// has none (see ``RequestBody``). What the adapter throws leaves it with the request's method and
/// URL, so every layer gets a failure from below that names its request.
struct StackBase: App {
    let adapter: any Adapter

    func call(_ env: Env) async throws(FaradayError) -> Completions {
        var env = env
        do {
            if env.requestHasPendingBody { try env.request.encodePendingBody() }
            return try await adapter.call(env)
        } catch {
            throw error.attaching(env.request)
        }
    }
}
