#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Stores cookies by RFC 6265 and hands them back for the requests they belong to; in memory,
/// or backed by a file that survives restarts. Thread-safe.
///
/// ```swift
/// let jar = try CookieJar(file: appSupport.appendingPathComponent("cookies.json"))
/// builder.use(Cookies.Handler(jar: jar))
/// ```
///
/// It never sends a cookie to another domain, nor a `Secure` cookie over plain HTTP; it refuses
/// cookies for public suffixes (``PublicSuffixList``, Mozilla's complete list), for another
/// domain, and (for IP-address hosts) for anything but that address; a plain-HTTP answer cannot
/// replace or delete a `Secure` cookie. `Max-Age` wins over `Expires`, and `Max-Age=0` deletes.
/// A hostile server cannot grow it without bound: at most ``maximumCookiesPerDomain`` cookies a
/// domain and ``maximumCookies`` in all, the oldest going first.
public final class CookieJar: Sendable {
    /// The most cookies kept for one domain.
    public static let maximumCookiesPerDomain = 50
    /// The most cookies kept in all.
    public static let maximumCookies = 3000

    private let state = Locked(Storage())
    private let suffixes: PublicSuffixList
    private let file: URL?
    private let persistsSessionCookies: Bool
    private let written = Locked(0)
    private let saveFailure = Locked<FaradayError?>(nil)
    /// The `Set-Cookie` headers read last, to store a repeated one without parsing it again.
    let reads = SetCookieMemory()
    /// The URL taken apart last: a client calls the same URL again and again, and taking it apart
    /// (its host and path out of Foundation's `URL`) costs more than comparing it. Only a URL
    /// without a base URL, query, fragment or user info is kept (each may hold a credential: an
    /// API key, an OAuth token, a password). Emptying the jar forgets it; a call taking a URL apart
    /// at that moment may remember its URL again.
    private let lastTarget = Locked<(url: URL, target: CookieRules.Target)?>(nil)

    /// An in-memory jar.
    public init(publicSuffixes: PublicSuffixList = .default) {
        self.suffixes = publicSuffixes
        self.file = nil
        self.persistsSessionCookies = false
    }

    /// A jar kept in a JSON file: loaded now, rewritten atomically after every change, each time
    /// as a new file readable by its owner only (mode 0600, whatever the file was before; a file
    /// only loaded is left as it is).
    ///
    /// - Parameters:
    ///   - file: the file; a missing file is an empty jar.
    ///   - persistsSessionCookies: also keep cookies without an expiry (browsers drop them when
    ///     they quit).
    ///   - publicSuffixes: the public suffixes no cookie may be set for.
    /// - Throws: ``FaradayError/Code/storageFailed`` when the file exists but cannot be read or
    ///   is not a cookie file; it is left untouched.
    public init(
        file: URL,
        persistsSessionCookies: Bool = false,
        publicSuffixes: PublicSuffixList = .default
    ) throws(FaradayError) {
        self.suffixes = publicSuffixes
        self.file = file
        self.persistsSessionCookies = persistsSessionCookies
        guard FileManager.default.fileExists(atPath: file.path) else { return }
        do {
            let saved = try JSONDecoder().decode(SavedJar.self, from: Data(contentsOf: file))
            let now = Date()
            state.withLock { state in
                for cookie in saved.cookies where !cookie.isExpired(at: now) {
                    state.put(cookie, now: now)
                }
            }
        } catch {
            throw FaradayError(
                .storageFailed,
                "The cookie file \(file.path) could not be read (\(error)); it was left as it is.",
                underlying: error
            )
        }
    }

    // MARK: Reading

    /// The cookies to send to `url`, longest path first, then oldest first (RFC 6265 §5.4).
    public func cookies(for url: URL, now: Date = Date()) -> [Cookie] {
        guard let target = target(of: url) else { return [] }
        return entries(for: target, now: now).map(\.cookie)
    }

    /// The `Cookie` header for `url`, or `nil` when no cookie applies.
    public func cookieHeader(for url: URL, now: Date = Date()) -> String? {
        guard let target = target(of: url) else { return nil }
        return cookieHeader(for: target, now: now)
    }

    /// `url` taken apart for matching cookies; `nil` without a host (or with an empty label).
    func target(of url: URL) -> CookieRules.Target? {
        if let last = lastTarget.withLock({ $0 }), last.url == url { return last.target }
        guard let target = CookieRules.Target(url) else { return nil }
        if Self.mayRemember(url) { lastTarget.withLock { $0 = (url, target) } }
        return target
    }

    /// Whether `url` holds nothing that may be a credential: no base URL, query, fragment or user
    /// info.
    private static func mayRemember(_ url: URL) -> Bool {
        url.baseURL == nil
            && !url.relativeString.utf8.contains {
                $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") || $0 == UInt8(ascii: "@")
            }
    }

    /// The URL ``target(of:)`` remembers (for tests).
    var rememberedURL: URL? { lastTarget.withLock { $0?.url } }

    /// ``cookieHeader(for:now:)`` for a URL already taken apart.
    ///
    /// Reads only the names and values, and sorts only when more than one cookie applies: one
    /// session cookie makes a header without a list or a copy of the cookie.
    func cookieHeader(for target: CookieRules.Target, now: Date) -> String? {
        let (first, others) = state.withLock { state in
            var first: SentPair?
            var others: [SentPair] = []
            state.forEachCookie(for: target, now: now) { entry in
                let pair = SentPair(sendOrder: entry.sendOrder, name: entry.cookie.name, value: entry.cookie.value)
                if first == nil { first = pair } else { others.append(pair) }
            }
            return (first, others)
        }
        guard let first else { return nil }
        guard !others.isEmpty else { return first.text }
        var all = others
        all.append(first)
        all.sort { $0.sendOrder < $1.sendOrder }
        return all.map(\.text).joined(separator: "; ")
    }

    /// The cookies for `target`, in the order they are sent.
    private func entries(for target: CookieRules.Target, now: Date) -> [Entry] {
        let found = state.withLock { state in
            var found: [Entry] = []
            state.forEachCookie(for: target, now: now) { found.append($0) }
            return found
        }
        guard found.count > 1 else { return found }
        return found.sorted { $0.sendOrder < $1.sendOrder }
    }

    /// A cookie as the `Cookie` header sends it.
    private struct SentPair {
        let sendOrder: Entry.SendOrder
        let name: String
        let value: String

        var text: String { name + "=" + value }
    }

    /// Every cookie that has not expired.
    public var allCookies: [Cookie] {
        let now = Date()
        return state.withLock { state in
            state.all.map(\.cookie).filter { !$0.isExpired(at: now) }
        }
    }

    /// The error of the last failed write of a file-backed jar, if the last write failed.
    public var lastSaveError: FaradayError? { saveFailure.snapshot }

    // MARK: Writing

    /// Stores the cookies of `Set-Cookie` headers received from `url`.
    public func store(setCookieHeaders headers: [String], from url: URL, now: Date = Date()) {
        guard let origin = target(of: url) else { return }  // no host: nothing is stored
        store(headers, from: origin, now: now, generation: nil)
    }

    /// Stores a cookie as it is, replacing one with the same name, domain and path.
    public func insert(_ cookie: Cookie) {
        change { state in
            state.put(cookie, now: Date())
            return true
        }
    }

    /// Removes every cookie.
    public func removeAll() { empty(newGeneration: false) }

    /// Empties the jar; responses to calls made before do not refill it.
    public func reset() { empty(newGeneration: true) }

    /// Removes every cookie and forgets what the jar remembered (the `Set-Cookie` headers read,
    /// the last URL); a new generation keeps the answers to earlier calls out.
    private func empty(newGeneration: Bool) {
        change { state in
            state.removeAll()
            if newGeneration { state.generation += 1 }
            return true
        }
        reads.forget()
        lastTarget.withLock { $0 = nil }
    }

    /// Increases with each ``reset()``; ``Cookies`` notes it when a request leaves.
    var generation: Int { state.withLock { $0.generation } }

    /// Stores headers unless the jar was reset since `generation`.
    func store<Headers: Sequence>(_ headers: Headers, from origin: CookieRules.Target, now: Date, generation: Int?)
    where Headers.Element == String {
        // Read outside the jar's lock (a parse takes microseconds). The first outcome is held
        // apart: an answer that sets one cookie stores it without making a list.
        var first: SetCookie.Outcome?
        var others: [SetCookie.Outcome] = []
        for header in headers {
            let outcome = reads.read(header, from: origin, now: now, suffixes: suffixes)
            if case .ignore = outcome { continue }
            if first == nil { first = outcome } else { others.append(outcome) }
        }
        guard let first else { return }
        let isSecureOrigin = origin.isSecure
        change { state in
            guard generation == nil || generation == state.generation else { return false }
            var changed = state.apply(first, now: now, fromSecureOrigin: isSecureOrigin)
            for outcome in others {
                changed = state.apply(outcome, now: now, fromSecureOrigin: isSecureOrigin) || changed
            }
            return changed
        }
    }

    /// Applies a change, then saves a file-backed jar if `body` says it changed anything, or if
    /// the last save failed (the next answer tries again).
    private func change(_ body: (inout Storage) -> Bool) {
        guard let file else {
            state.withLock { _ = body(&$0) }
            return
        }
        let snapshot = state.withLock { state -> (version: Int, cookies: [Cookie])? in
            guard body(&state) || lastSaveError != nil else { return nil }
            state.version += 1
            return (state.version, state.all.map(\.cookie))
        }
        guard let snapshot else { return }
        // Writes happen one at a time, and an older snapshot never overwrites a newer one.
        written.withLock { written in
            guard snapshot.version > written else { return }
            written = snapshot.version
            let kept = snapshot.cookies.filter { persistsSessionCookies || $0.isPersistent }.sorted {
                $0.createdAt < $1.createdAt
            }
            do {
                try PrivateFile.write(JSONEncoder().encode(SavedJar(cookies: kept)), to: file)
                saveFailure.withLock { $0 = nil }
            } catch {
                saveFailure.withLock {
                    $0 = FaradayError(
                        .storageFailed,
                        "The cookie file \(file.path) could not be written: \(error)",
                        underlying: error
                    )
                }
            }
        }
    }
}

/// The file format of a file-backed jar.
private struct SavedJar: Codable {
    var format = "faraday-cookies"
    var version = 1
    var cookies: [Cookie]

    init(cookies: [Cookie]) { self.cookies = cookies }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard try container.decode(String.self, forKey: .format) == "faraday-cookies" else {
            throw DecodingError.dataCorruptedError(
                forKey: .format,
                in: container,
                debugDescription: "not a Faraday cookie file"
            )
        }
        version = try container.decode(Int.self, forKey: .version)
        cookies = try container.decode([Cookie].self, forKey: .cookies)
    }
}
