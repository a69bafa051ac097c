#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension CookieJar {
    /// A stored cookie and when it was first stored, to break ties between equal creation times.
    struct Entry {
        var cookie: Cookie
        let order: Int

        /// Where the cookie goes in a `Cookie` header: longest path first, then oldest first
        /// (RFC 6265 §5.4), then first stored.
        struct SendOrder: Comparable {
            let pathLength: Int
            let createdAt: Date
            let order: Int

            static func < (lhs: SendOrder, rhs: SendOrder) -> Bool {
                if lhs.pathLength != rhs.pathLength { return lhs.pathLength > rhs.pathLength }
                if lhs.createdAt != rhs.createdAt { return lhs.createdAt < rhs.createdAt }
                return lhs.order < rhs.order
            }
        }

        var sendOrder: SendOrder {
            SendOrder(pathLength: cookie.path.utf8.count, createdAt: cookie.createdAt, order: order)
        }
    }

    /// The jar's cookies and RFC 6265's storage model over them (§5.3, with RFC 6265bis §5.7 and
    /// the jar's limits): what a change does, under the jar's lock.
    struct Storage {
        /// The cookies of each domain, by identity (name, domain and path): a request looks up
        /// only its host's domain and the domains above it.
        var domains: [String: [Cookie.Identity: Entry]] = [:]
        var count = 0
        var nextOrder = 0
        var generation = 0
        var version = 0

        /// Every entry, oldest first.
        var all: [Entry] { domains.values.flatMap(\.values).sorted { $0.order < $1.order } }

        /// Empties the jar (its generation and version go on).
        mutating func removeAll() {
            domains = [:]
            count = 0
        }

        /// Calls `visit` with each cookie for `target` that has not expired, in no order.
        func forEachCookie(for target: CookieRules.Target, now: Date, _ visit: (Entry) -> Void) {
            // An empty jar (a server that sets no cookie) has no domain to take the host apart for.
            guard !domains.isEmpty else { return }
            target.forEachCandidateDomain { domain in
                guard let entries = domains[domain] else { return }
                for entry in entries.values where !entry.cookie.isExpired(at: now) && entry.cookie.matches(target) {
                    visit(entry)
                }
            }
        }

        /// Stores or deletes what a `Set-Cookie` header said; whether the jar changed.
        mutating func apply(_ outcome: SetCookie.Outcome, now: Date, fromSecureOrigin: Bool) -> Bool {
            switch outcome {
            case .store(let cookie) where holds(cookie):
                return false  // the same cookie again (a server that sets its session on every answer)
            case .store(let cookie) where fromSecureOrigin || !shadowsSecureCookie(cookie):
                put(cookie, now: now, fromSecureOrigin: fromSecureOrigin)
                return true
            case .delete(let cookie) where fromSecureOrigin || !shadowsSecureCookie(cookie):
                return remove(cookie)
            case .store, .delete, .ignore:
                return false
            }
        }

        /// Whether the jar holds `cookie` already, as it is: storing it again would change nothing
        /// (replacing a cookie keeps its creation time), so it is neither stored nor saved again.
        func holds(_ cookie: Cookie) -> Bool {
            guard var held = domains[cookie.domain]?[cookie.identity]?.cookie else { return false }
            held.createdAt = cookie.createdAt
            return held == cookie
        }

        /// RFC 6265bis §5.7, "leave secure cookies alone": a cookie from plain HTTP may neither
        /// replace nor delete a `Secure` cookie of the same name whose domain matches its domain (or
        /// the other way round) and whose path its path falls under. Otherwise a network attacker
        /// could fix an HTTPS session by answering one plain request.
        func shadowsSecureCookie(_ cookie: Cookie) -> Bool {
            domains.contains { domain, entries in
                guard
                    CookieRules.domainMatches(domain, cookie.domain) || CookieRules.domainMatches(cookie.domain, domain)
                else { return false }
                return entries.values.contains { entry in
                    entry.cookie.isSecure && entry.cookie.name == cookie.name
                        && CookieRules.pathMatches(cookie.path, entry.cookie.path)
                }
            }
        }

        /// Stores `cookie`, in place of the one with its identity (whose creation time and place
        /// it keeps, §5.3 step 11), then evicts what the limits ask.
        mutating func put(_ cookie: Cookie, now: Date, fromSecureOrigin: Bool = true) {
            let identity = cookie.identity
            var entry = Entry(cookie: cookie, order: nextOrder)
            if let existing = domains[cookie.domain]?[identity] {
                entry = Entry(cookie: cookie, order: existing.order)
                entry.cookie.createdAt = existing.cookie.createdAt
            } else {
                nextOrder += 1
                count += 1
            }
            // Assigned through `default:`, which changes the domain's dictionary in place.
            domains[cookie.domain, default: [:]][identity] = entry
            evict(now: now, domain: cookie.domain, keepingSecure: !fromSecureOrigin)
        }

        /// Removes the cookie with `cookie`'s identity; `false` when there was none.
        @discardableResult
        mutating func remove(_ cookie: Cookie) -> Bool {
            guard domains[cookie.domain]?.removeValue(forKey: cookie.identity) != nil else { return false }
            if domains[cookie.domain]?.isEmpty == true { domains[cookie.domain] = nil }
            count -= 1
            return true
        }

        /// Drops the domain's expired cookies and its oldest beyond the limit; past the jar's limit,
        /// every expired cookie, then the oldest. `Secure` cookies go last (RFC 6265bis §5.7), and a
        /// change from plain HTTP never removes one (`keepingSecure`): flooding the jar with
        /// cookies from plain HTTP cannot push a `Secure` cookie out to replace it.
        private mutating func evict(now: Date, domain: String, keepingSecure: Bool) {
            let expired = domains[domain]?.values.filter { $0.cookie.isExpired(at: now) } ?? []
            for entry in expired { remove(entry.cookie) }
            if let live = domains[domain], live.count > CookieJar.maximumCookiesPerDomain {
                let oldest = Self.evictionOrder(Array(live.values), keepingSecure: keepingSecure)
                    .prefix(live.count - CookieJar.maximumCookiesPerDomain)
                for entry in oldest { remove(entry.cookie) }
            }
            guard count > CookieJar.maximumCookies else { return }
            for entry in all where entry.cookie.isExpired(at: now) { remove(entry.cookie) }
            let candidates = Self.evictionOrder(all, keepingSecure: keepingSecure)
            for entry in candidates.prefix(max(0, count - CookieJar.maximumCookies)) { remove(entry.cookie) }
        }

        /// The entries in the order they go: not `Secure` first, then oldest first; without the
        /// `Secure` ones when they are kept.
        private static func evictionOrder(_ entries: [Entry], keepingSecure: Bool) -> [Entry] {
            entries.filter { !(keepingSecure && $0.cookie.isSecure) }.sorted {
                $0.cookie.isSecure != $1.cookie.isSecure ? !$0.cookie.isSecure : $0.order < $1.order
            }
        }
    }
}
