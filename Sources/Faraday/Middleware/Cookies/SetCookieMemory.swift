#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// ``SetCookie/parse(_:from:now:suffixes:)``, remembered for a server that sets the same cookies
/// with every answer (a session, a CSRF token): the same header from the same origin stores the
/// same cookie again, made now, without the RFC 6265 parse. Only cookies with no expiry are
/// remembered: an expiry is the one part of a reading, besides its making, that depends on the
/// time.
struct SetCookieMemory: Sendable {
    /// How many headers are remembered: a session cookie and a few companions (a CSRF token, a
    /// load balancer's affinity cookie) sent again with every answer.
    static let capacity = 8

    /// A `Set-Cookie` header, where it came from and the cookie it stored.
    private struct Read {
        let header: String
        let origin: CookieRules.Target
        let cookie: Cookie

        /// Whether `header` from `origin` is this read again: the same bytes (as the parse reads
        /// them; `String ==` would take a decomposed `é` for a precomposed one) from the same origin.
        func matches(_ header: String, from origin: CookieRules.Target) -> Bool {
            self.origin == origin && self.header.hasSameUTF8(as: header)
        }
    }

    private struct State {
        /// Newest first.
        var reads: [Read] = []
        /// Moves on with each ``SetCookieMemory/forget()``: a read that began before does not put
        /// its cookie back.
        var epoch = 0
    }

    private let state = Locked(State())

    /// What the jar does with `header` from `origin`.
    func read(
        _ header: String,
        from origin: CookieRules.Target,
        now: Date,
        suffixes: PublicSuffixList
    )
        -> SetCookie.Outcome
    {
        let (remembered, epoch) = state.withLock { state in
            (state.reads.first { $0.matches(header, from: origin) }?.cookie, state.epoch)
        }
        if var cookie = remembered {
            cookie.createdAt = now
            return .store(cookie)
        }
        let outcome = SetCookie.parse(header, from: origin, now: now, suffixes: suffixes)
        if case .store(let cookie) = outcome, cookie.expiresAt == nil {
            remember(Read(header: header, origin: origin, cookie: cookie), since: epoch)
        }
        return outcome
    }

    /// Forgets every header (an emptied jar keeps no session's cookie in memory).
    func forget() {
        state.withLock { state in
            state.reads = []
            state.epoch += 1
        }
    }

    /// The headers remembered, newest first (for tests).
    var headers: [String] { state.withLock { $0.reads.map(\.header) } }

    /// Remembers `read`, unless the memory was emptied since `epoch` or holds it already; the
    /// oldest goes when full.
    private func remember(_ read: Read, since epoch: Int) {
        state.withLock { state in
            guard epoch == state.epoch, !state.reads.contains(where: { $0.matches(read.header, from: read.origin) })
            else { return }
            state.reads.insert(read, at: 0)
            if state.reads.count > Self.capacity { state.reads.removeLast() }
        }
    }
}
