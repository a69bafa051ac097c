/// State that a middleware keeps across requests and that a logout or an account switch must
/// clear: credentials, cookies, cached responses.
///
/// A ``Handler`` that holds such state conforms, and ``Connection/reset()`` resets it along with
/// every other. Calls already in flight finish with the state they started with: what they
/// bring back after the reset (a refreshed token, a `Set-Cookie`) is not stored.
public protocol Resettable: Sendable {
    /// Forgets the state.
    func reset()
}
