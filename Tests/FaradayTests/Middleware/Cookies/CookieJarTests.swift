import Foundation
import Testing

@testable import Faraday

@Suite struct CookieJarTests {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func url(_ string: String) throws -> URL { try #require(URL(string: string)) }

    private func jar(_ headers: [String], from origin: String) throws -> CookieJar {
        let jar = CookieJar()
        jar.store(setCookieHeaders: headers, from: try url(origin), now: now)
        return jar
    }

    private func header(_ jar: CookieJar, _ target: String) throws -> String? {
        jar.cookieHeader(for: try url(target), now: now)
    }

    // MARK: Domains (RFC 6265 §5.1.3, §5.3 steps 4-6)

    @Test func aCookieWithoutDomainIsHostOnly() throws {
        let jar = try jar(["sid=1"], from: "https://example.com/")
        #expect(try header(jar, "https://example.com/") == "sid=1")
        #expect(try header(jar, "https://www.example.com/") == nil)
        #expect(try header(jar, "https://other.com/") == nil)
    }

    @Test(arguments: ["Domain=example.com", "Domain=.example.com", "domain=EXAMPLE.com"])
    func aDomainAttributeCoversSubdomainsWithOrWithoutALeadingDot(_ attribute: String) throws {
        let jar = try jar(["sid=1; \(attribute)"], from: "https://www.example.com/")
        #expect(try header(jar, "https://example.com/") == "sid=1")
        #expect(try header(jar, "https://api.example.com/") == "sid=1")
        #expect(try header(jar, "https://deep.api.example.com/") == "sid=1")
        #expect(try header(jar, "https://notexample.com/") == nil)
        #expect(jar.allCookies.first?.isHostOnly == false)
    }

    @Test(arguments: ["Domain=other.com", "Domain=api.example.com", "Domain=ample.com"])
    func aDomainTheHostIsNotInIsRejected(_ attribute: String) throws {
        let jar = try jar(["sid=1; \(attribute)"], from: "https://www.example.com/")
        #expect(jar.allCookies.isEmpty)
    }

    @Test(arguments: [
        ("Domain=com", "https://example.com/"), ("Domain=co.uk", "https://shop.co.uk/"),
        ("Domain=github.io", "https://me.github.io/"), ("Domain=.com", "https://example.com/"),
    ])
    func cookiesForPublicSuffixesAreRejected(_ attribute: String, _ origin: String) throws {
        #expect(try jar(["sid=1; \(attribute)"], from: origin).allCookies.isEmpty)
    }

    @Test(arguments: [
        ("Domain=com.", "https://evil.com./"), ("Domain=com.", "https://evil.com/"),
        ("Domain=com", "https://evil.com./"), ("Domain=co.jp", "https://evil.co.jp/"),
        ("Domain=gifu.jp", "https://evil.gifu.jp/"), ("Domain=s3.amazonaws.com.", "https://evil.s3.amazonaws.com/"),
        ("Domain=anything.kawasaki.jp", "https://evil.anything.kawasaki.jp/"),
    ])
    func aTrailingDotOrALessKnownSuffixDoesNotGetPastThePublicSuffixRule(_ attribute: String, _ origin: String) throws {
        let jar = try jar(["sid=1; \(attribute)"], from: origin)
        #expect(try header(jar, "https://bank.com./") == nil)
        #expect(try header(jar, "https://bank.com/") == nil)
        #expect(try header(jar, "https://bank.co.jp/") == nil)
        #expect(jar.allCookies.allSatisfy { !$0.domain.hasSuffix(".") })
        #expect(jar.allCookies.allSatisfy { $0.isHostOnly })
    }

    @Test func unicodeAndPunycodeSpellingsAreTheSameSuffixAndDomain() throws {
        let origin = "https://xn--85x722f.xn--55qx5d.cn/"  // 食狮.公司.cn, as hosts arrive
        #expect(try jar(["a=1; Domain=公司.cn"], from: origin).allCookies.isEmpty)
        #expect(try jar(["a=1; Domain=xn--55qx5d.cn"], from: origin).allCookies.isEmpty)
        let jar = try jar(["a=1; Domain=食狮.公司.cn"], from: origin)
        #expect(jar.allCookies.first?.domain == "xn--85x722f.xn--55qx5d.cn")
        #expect(try header(jar, "https://www.xn--85x722f.xn--55qx5d.cn/") == "a=1")
    }

    /// The host is taken in its canonical form; a `Domain` attribute as written (a trailing dot
    /// there matches nothing: see `aDomainWithATrailingDotMatchesNoHost`).
    @Test func aHostWithATrailingDotIsTheSameHost() throws {
        let jar = try jar(["sid=1; Domain=example.com"], from: "https://www.example.com./")
        #expect(jar.allCookies.first?.domain == "example.com")
        #expect(try header(jar, "https://api.example.com/") == "sid=1")
        #expect(try header(jar, "https://api.example.com./") == "sid=1")
    }

    @Test func aPublicSuffixMaySetAHostOnlyCookieForItself() throws {
        let jar = try jar(["sid=1; Domain=github.io"], from: "https://github.io/")
        #expect(jar.allCookies.first?.isHostOnly == true)
        #expect(try header(jar, "https://me.github.io/") == nil)
    }

    @Test func aLoadedPublicSuffixListHasWildcardsAndExceptions() throws {
        let list = PublicSuffixList(rules: ["// comment", "*.ck", "!www.ck", "example"])
        #expect(list.isPublicSuffix("anything.ck"))
        #expect(!list.isPublicSuffix("www.ck"))
        #expect(list.isPublicSuffix("example"))
        #expect(!list.isPublicSuffix("shop.example"))
    }

    @Test func ipAddressesMatchOnlyThemselves() throws {
        #expect(try jar(["a=1; Domain=0.0.1"], from: "http://127.0.0.1/").allCookies.isEmpty)
        #expect(try jar(["a=1; Domain=example.com"], from: "http://127.0.0.1/").allCookies.isEmpty)
        let jar = try jar(["a=1", "b=2; Domain=127.0.0.1"], from: "http://127.0.0.1:8080/")
        #expect(try header(jar, "http://127.0.0.1:9090/") == "a=1; b=2")
        #expect(try header(jar, "http://127.0.0.2/") == nil)
    }

    // MARK: Paths (§5.1.4)

    @Test func pathsMatchByPrefixAtASlash() throws {
        let jar = try jar(["a=1; Path=/docs"], from: "https://example.com/")
        for path in ["/docs", "/docs/", "/docs/web/page"] {
            #expect(try header(jar, "https://example.com\(path)") == "a=1")
        }
        for path in ["/", "/docsets", "/Docs"] { #expect(try header(jar, "https://example.com\(path)") == nil) }
    }

    @Test(arguments: [
        ("https://example.com/a/b/c", "/a/b"), ("https://example.com/a", "/"), ("https://example.com", "/"),
        ("https://example.com/a/", "/a"),
    ])
    func theDefaultPathIsTheRequestsDirectory(_ origin: String, _ expected: String) throws {
        #expect(try jar(["a=1"], from: origin).allCookies.first?.path == expected)
        #expect(try jar(["a=1; Path=relative"], from: origin).allCookies.first?.path == expected)
    }

    @Test func longerPathsGoFirstThenOlderCookies() throws {
        let jar = CookieJar()
        let origin = try url("https://example.com/")
        jar.store(setCookieHeaders: ["short=1; Path=/"], from: origin, now: now)
        jar.store(setCookieHeaders: ["long=2; Path=/a/b"], from: origin, now: now.addingTimeInterval(1))
        jar.store(setCookieHeaders: ["mid=3; Path=/a"], from: origin, now: now.addingTimeInterval(2))
        jar.store(setCookieHeaders: ["old=4; Path=/a"], from: origin, now: now.addingTimeInterval(-5))
        #expect(try header(jar, "https://example.com/a/b/c") == "long=2; old=4; mid=3; short=1")
    }

    /// Several `Set-Cookie` fields of one answer apply in their order, and cookies of the same
    /// path and time go in the order they were stored.
    @Test func theFieldsOfOneAnswerApplyInOrder() throws {
        let jar = try jar(
            ["a=1", "b=2", "ignored", "c=3", "a=; Max-Age=0", "d=4", "b=5"],
            from: "https://example.com/"
        )
        #expect(try header(jar, "https://example.com/") == "b=5; c=3; d=4")
        jar.store(setCookieHeaders: ["a=6", "c=; Max-Age=0"], from: try url("https://example.com/"), now: now)
        #expect(try header(jar, "https://example.com/") == "b=5; d=4; a=6")
        #expect(try header(jar, "https://other.example/") == nil)
    }

    /// The jar remembers the last URL it took apart; another URL (host, scheme or path) is taken
    /// apart anew, and the remembered one still answers right after it.
    @Test func eachURLIsTakenApartForItself() throws {
        let jar = try jar(["a=1; Path=/a", "s=2; Secure"], from: "https://example.com/")
        jar.store(setCookieHeaders: ["b=3"], from: try url("https://b.example/"), now: now)
        for _ in 0..<2 {
            #expect(try header(jar, "https://example.com/a/1") == "a=1; s=2")
            #expect(try header(jar, "http://example.com/a/1") == "a=1")
            #expect(try header(jar, "https://example.com/b") == "s=2")
            #expect(try header(jar, "http://example.com/a/1") == "a=1")
            #expect(try header(jar, "https://b.example/a/1") == "b=3")
            #expect(try header(jar, "https://example.com/a/1") == "a=1; s=2")
        }
        #expect(jar.cookies(for: try url("https://b.example/")).map(\.name) == ["b"])
    }

    /// A URL with a base URL, query, fragment or user info (each may hold a credential) is not
    /// remembered, and an emptied jar forgets the one it remembered.
    @Test func aURLThatMayHoldACredentialIsNotRemembered() throws {
        let jar = try jar(["a=1"], from: "https://example.com/")
        #expect(jar.rememberedURL?.absoluteString == "https://example.com/")
        #expect(try header(jar, "https://example.com/items?api_key=secret") == "a=1")
        #expect(try header(jar, "https://user:secret@example.com/items") == "a=1")
        #expect(try header(jar, "https://example.com/callback#access_token=secret") == "a=1")
        let base = try url("https://example.com/?api_key=secret")
        #expect(jar.cookieHeader(for: try #require(URL(string: "/items", relativeTo: base)), now: now) == "a=1")
        #expect(jar.rememberedURL?.absoluteString == "https://example.com/")
        #expect(try header(jar, "https://example.com/items") == "a=1")
        #expect(jar.rememberedURL?.absoluteString == "https://example.com/items")
        jar.reset()
        #expect(jar.rememberedURL == nil)
        #expect(try header(jar, "https://example.com/items") == nil)
        jar.removeAll()
        #expect(jar.rememberedURL == nil)
    }

    // MARK: Expiry (§5.2.1, §5.2.2)

    @Test func maxAgeWinsOverExpiresWhateverTheOrder() throws {
        let past = "Expires=Thu, 01 Jan 1970 00:00:01 GMT"
        #expect(try jar(["a=1; Max-Age=100; \(past)"], from: "https://example.com/").allCookies.count == 1)
        #expect(try jar(["a=1; \(past); Max-Age=100"], from: "https://example.com/").allCookies.count == 1)
        let cookie = try #require(try jar(["a=1; Max-Age=100; \(past)"], from: "https://example.com/").allCookies.first)
        #expect(cookie.expiresAt == now.addingTimeInterval(100))
    }

    @Test(arguments: ["Max-Age=0", "Max-Age=-1", "Expires=Wed, 21 Oct 2015 07:28:00 GMT"])
    func anExpiryInThePastDeletesTheCookie(_ attribute: String) throws {
        let jar = try jar(["sid=1; Path=/"], from: "https://example.com/")
        jar.store(setCookieHeaders: ["sid=gone; Path=/; \(attribute)"], from: try url("https://example.com/"), now: now)
        #expect(try header(jar, "https://example.com/") == nil)
    }

    @Test func aCookieIsNotSentAfterItExpires() throws {
        let jar = try jar(["a=1; Max-Age=60"], from: "https://example.com/")
        #expect(jar.cookieHeader(for: try url("https://example.com/"), now: now.addingTimeInterval(59)) == "a=1")
        #expect(jar.cookieHeader(for: try url("https://example.com/"), now: now.addingTimeInterval(61)) == nil)
    }

    /// The same `Set-Cookie` again changes nothing in the jar, but a `Max-Age` counts from each
    /// answer: the cookie received again lives on from then.
    @Test func aMaxAgeCookieReceivedAgainLivesOnFromThen() throws {
        let jar = try jar(["a=1; Max-Age=60"], from: "https://example.com/")
        jar.store(
            setCookieHeaders: ["a=1; Max-Age=60"],
            from: try url("https://example.com/"),
            now: now.addingTimeInterval(50)
        )
        #expect(jar.cookieHeader(for: try url("https://example.com/"), now: now.addingTimeInterval(100)) == "a=1")
        #expect(jar.cookieHeader(for: try url("https://example.com/"), now: now.addingTimeInterval(111)) == nil)
    }

    /// A cookie set again as it was keeps its creation time and its place in the `Cookie` header.
    @Test func theSameCookieAgainKeepsItsCreationTimeAndPlace() throws {
        let origin = try url("https://example.com/")
        let jar = try jar(["first=1", "second=2"], from: "https://example.com/")
        jar.store(setCookieHeaders: ["first=1"], from: origin, now: now.addingTimeInterval(10))
        #expect(try header(jar, "https://example.com/") == "first=1; second=2")
        #expect(jar.cookies(for: origin, now: now.addingTimeInterval(10)).first?.createdAt == now)
        jar.store(setCookieHeaders: ["first=changed"], from: origin, now: now.addingTimeInterval(20))
        #expect(try header(jar, "https://example.com/") == "first=changed; second=2")
        #expect(jar.cookies(for: origin, now: now.addingTimeInterval(20)).first?.createdAt == now)
    }

    /// The jar remembers the `Set-Cookie` headers it read (a server sets the same session cookie
    /// on every answer), but only for the same header from the same origin: a cookie made again
    /// is made at its own time, and another host, path or scheme reads the header for itself.
    /// (`Max-Age=0` removes a cookie and leaves what the jar remembers; `removeAll` would not.)
    @Test func aSetCookieReadAgainIsReadForItsOwnOriginAndTime() throws {
        let page = try url("https://example.com/docs/page")
        let jar = try jar(["a=1; Secure"], from: "https://example.com/docs/page")
        jar.store(setCookieHeaders: ["a=1; Secure; Max-Age=0"], from: page, now: now.addingTimeInterval(5))
        #expect(jar.allCookies.isEmpty)
        jar.store(setCookieHeaders: ["a=1; Secure"], from: page, now: now.addingTimeInterval(10))
        #expect(jar.allCookies.map(\.createdAt) == [now.addingTimeInterval(10)])

        jar.store(setCookieHeaders: ["a=1; Secure; Max-Age=0"], from: page, now: now.addingTimeInterval(15))
        // A plain-HTTP origin may not set a `Secure` cookie (RFC 6265bis §5.6).
        jar.store(setCookieHeaders: ["a=1; Secure"], from: try url("http://example.com/docs/page"), now: now)
        #expect(jar.allCookies.isEmpty)

        jar.store(setCookieHeaders: ["a=1; Secure"], from: page, now: now)
        jar.store(setCookieHeaders: ["a=1; Secure"], from: try url("https://example.com/api/x"), now: now)
        jar.store(setCookieHeaders: ["a=1; Secure"], from: try url("https://other.example/"), now: now)
        let places = jar.allCookies.map { "\($0.domain)\($0.path)" }.sorted()
        #expect(places == ["example.com/api", "example.com/docs", "other.example/"])
    }

    /// A jar emptied (a logout) forgets the headers it remembered too: no session cookie stays
    /// in its memory. Headers with an expiry are not remembered, nor one remembered already.
    @Test func anEmptiedJarForgetsTheRememberedHeaders() throws {
        let origin = try url("https://example.com/")
        let jar = try jar(["session=1", "session=1", "theme=dark; Max-Age=60"], from: "https://example.com/")
        #expect(jar.reads.headers == ["session=1"])
        jar.reset()
        #expect(jar.reads.headers.isEmpty)
        jar.store(setCookieHeaders: ["csrf=x"], from: origin, now: now)
        jar.removeAll()
        #expect(jar.reads.headers.isEmpty)
    }

    /// What the jar remembers is matched byte for byte, as the parse reads a header: a value
    /// spelled with other bytes for the same characters (a decomposed `é`) is read for itself.
    /// (Another value first, since the jar takes a cookie equal by `String ==` for the one it
    /// holds and leaves that alone.)
    @Test func aRememberedSetCookieMatchesOnlyTheSameBytes() throws {
        let origin = try url("https://example.com/")
        let jar = try jar(["a=caf\u{E9}"], from: "https://example.com/")
        jar.store(setCookieHeaders: ["a=other"], from: origin, now: now)
        jar.store(setCookieHeaders: ["a=cafe\u{301}"], from: origin, now: now)
        let value = try #require(jar.allCookies.first?.value)
        #expect(Array(value.utf8) == Array("cafe\u{301}".utf8))
    }

    /// A server that sets several cookies on every answer (a session and a CSRF token) has each
    /// read as it says, whichever the jar remembers.
    @Test func severalCookiesSetOnEveryAnswerStayAsSent() throws {
        let origin = try url("https://example.com/")
        let jar = try jar(["session=1", "csrf=x"], from: "https://example.com/")
        for round in 1...3 {
            jar.store(
                setCookieHeaders: ["session=1", "csrf=x"],
                from: origin,
                now: now.addingTimeInterval(Double(round))
            )
        }
        jar.store(setCookieHeaders: ["csrf=y"], from: origin, now: now.addingTimeInterval(10))
        #expect(try header(jar, "https://example.com/") == "session=1; csrf=y")
        #expect(jar.allCookies.allSatisfy { $0.createdAt == now })
    }

    @Test func invalidMaxAgeAndExpiresAreIgnored() throws {
        let cookie = try #require(
            try jar(["a=1; Max-Age=12abc; Expires=not a date"], from: "https://example.com/").allCookies.first
        )
        #expect(cookie.expiresAt == nil)
    }

    @Test func lifetimesAreCappedAt400Days() throws {
        let cookie = try #require(try jar(["a=1; Max-Age=999999999999"], from: "https://example.com/").allCookies.first)
        #expect(cookie.expiresAt == now.addingTimeInterval(400 * 24 * 60 * 60))
    }

    // MARK: Secure, prefixes and attributes

    @Test func secureCookiesTravelOnlyOverHTTPS() throws {
        let jar = try jar(["s=1; Secure", "p=2"], from: "https://example.com/")
        #expect(try header(jar, "https://example.com/") == "s=1; p=2")
        #expect(try header(jar, "http://example.com/") == "p=2")
    }

    @Test func anInsecureOriginCannotSetSecureCookies() throws {
        #expect(try jar(["s=1; Secure"], from: "http://example.com/").allCookies.isEmpty)
        #expect(try jar(["__Secure-a=1"], from: "https://example.com/").allCookies.isEmpty)
        #expect(try jar(["__Host-a=1; Secure; Domain=example.com"], from: "https://example.com/").allCookies.isEmpty)
        #expect(try jar(["__Host-a=1; Secure; Path=/"], from: "https://example.com/").allCookies.count == 1)
    }

    /// rfc6265bis §5.7: `__Secure-` and `__Host-` match whatever their case (curl 7.87 too).
    @Test(arguments: [
        "__HOST-sid=evil; Domain=example.com", "__host-sid=evil; Domain=example.com",
        "__Host-sid=evil; Domain=example.com", "__SECURE-sid=evil; Domain=example.com",
        "__secure-sid=evil",
    ])
    func cookiePrefixesIgnoreCase(_ attack: String) throws {
        let attacked = try jar([attack], from: "http://a.example.com/")
        #expect(attacked.allCookies.isEmpty)
        #expect(try header(attacked, "https://example.com/") == nil)
        #expect(try jar(["__HOST-a=1; Secure; Domain=example.com"], from: "https://example.com/").allCookies.isEmpty)
        #expect(try jar(["__HOST-a=1; Secure; Path=/"], from: "https://example.com/").allCookies.count == 1)
    }

    /// A `Domain` with a trailing dot matches no host (RFC 6265 §5.1.3; http-state DOMAIN0014):
    /// hosts are canonical, the attribute is taken as written.
    @Test func aDomainWithATrailingDotMatchesNoHost() throws {
        let dotted = try jar(["foo=bar; domain=home.example.org."], from: "http://home.example.org:8888/cookie-parser")
        #expect(dotted.allCookies.isEmpty)
        #expect(try header(dotted, "http://home.example.org:8888/") == nil)
        let plain = try jar(["foo=bar; domain=home.example.org"], from: "http://home.example.org./cookie-parser")
        #expect(try header(plain, "http://home.example.org:8888/") == "foo=bar")
    }

    @Test(arguments: [
        "sid=evil", "sid=evil; Path=/account", "sid=evil; Domain=example.com", "sid=evil; Max-Age=0",
        "sid=evil; Expires=Wed, 21 Oct 2015 07:28:00 GMT",
    ])
    func plainHTTPCannotReplaceOrDeleteASecureCookie(_ attack: String) throws {
        let jar = try jar(["sid=good; Secure; Domain=example.com"], from: "https://www.example.com/")
        jar.store(setCookieHeaders: [attack], from: try url("http://www.example.com/account/login"), now: now)
        #expect(try header(jar, "https://www.example.com/account/") == "sid=good")
        #expect(jar.allCookies.count == 1)
    }

    @Test func floodingTheJarFromPlainHTTPCannotPushASecureCookieOut() throws {
        let jar = try jar(["sid=good; Secure; Domain=example.com"], from: "https://example.com/")
        let flood = (0..<(CookieJar.maximumCookiesPerDomain + 5)).map { "c\($0)=x; Domain=example.com" }
        jar.store(setCookieHeaders: flood + ["sid=evil"], from: try url("http://example.com/"), now: now)
        #expect(try header(jar, "https://example.com/")?.hasPrefix("sid=good") == true)
        #expect(jar.allCookies.filter { $0.name == "sid" }.count == 1)
        #expect(jar.allCookies.count == CookieJar.maximumCookiesPerDomain)
        // From HTTPS, Secure cookies are evicted last: the non-secure ones go first.
        let secure = try self.jar(["s=1; Secure; Domain=example.com"], from: "https://example.com/")
        secure.store(setCookieHeaders: flood, from: try url("https://example.com/"), now: now)
        #expect(secure.allCookies.contains { $0.name == "s" })
    }

    @Test func aSecureHostCookieIsLeftAloneByAPlainDomainCookieAboveIt() throws {
        let jar = try jar(["sid=good; Secure"], from: "https://www.example.com/")
        jar.store(setCookieHeaders: ["sid=evil; Domain=example.com"], from: try url("http://example.com/"), now: now)
        #expect(try header(jar, "https://www.example.com/") == "sid=good")
    }

    @Test(arguments: ["https://x.com../", "https://a..b.com/"])
    func aHostWithAnEmptyLabelGetsAndSetsNothing(_ origin: String) throws {
        #expect(try jar(["a=1", "b=2; Domain=com"], from: origin).allCookies.isEmpty)
        #expect(try jar(["a=1; Domain=com.."], from: "https://x.com/").allCookies.isEmpty)
        #expect(PublicSuffixList.default.isPublicSuffix("com.."))
    }

    @Test func plainHTTPMaySetOtherNamesAndHTTPSMayReplaceASecureCookie() throws {
        let jar = try jar(["sid=good; Secure"], from: "https://example.com/")
        jar.store(setCookieHeaders: ["theme=dark"], from: try url("http://example.com/"), now: now)
        jar.store(setCookieHeaders: ["sid=new; Secure"], from: try url("https://example.com/"), now: now)
        #expect(try header(jar, "https://example.com/") == "sid=new; theme=dark")
        // A Secure cookie on another path that the new cookie's path does not fall under.
        let scoped = try self.jar(["sid=good; Secure; Path=/admin"], from: "https://example.com/admin")
        scoped.store(setCookieHeaders: ["sid=other"], from: try url("http://example.com/"), now: now)
        #expect(try header(scoped, "http://example.com/") == "sid=other")
    }

    @Test func httpOnlyAndSameSiteAreKept() throws {
        let cookie = try #require(
            try jar(["a=1; HttpOnly; SameSite=lax"], from: "https://example.com/").allCookies.first
        )
        #expect(cookie.isHTTPOnly)
        #expect(cookie.sameSite == .lax)
        #expect(try jar(["a=1; SameSite=bogus"], from: "https://example.com/").allCookies.first?.sameSite == nil)
    }

    @Test func aReplacementKeepsTheOriginalCreationTime() throws {
        let jar = CookieJar()
        let origin = try url("https://example.com/")
        jar.store(setCookieHeaders: ["a=1"], from: origin, now: now)
        jar.store(setCookieHeaders: ["a=2"], from: origin, now: now.addingTimeInterval(100))
        #expect(jar.allCookies.map(\.value) == ["2"])
        #expect(jar.allCookies.first?.createdAt == now)
    }

    // MARK: Hostile input

    @Test(arguments: [
        "", "novalue", "=nameless", "a\u{0}b=1", "a=b\u{7}", "big=" + String(repeating: "x", count: 5000),
    ])
    func malformedCookiesAreIgnored(_ header: String) throws {
        #expect(try jar([header], from: "https://example.com/").allCookies.isEmpty)
    }

    @Test func aServerCannotGrowTheJarWithoutBound() throws {
        let headers = (0..<200).map { "c\($0)=v" }
        let jar = try jar(headers, from: "https://example.com/")
        #expect(jar.allCookies.count == CookieJar.maximumCookiesPerDomain)
    }

    @Test func theJarAsAWholeKeepsItsNewestCookies() throws {
        let jar = CookieJar()
        let sites = CookieJar.maximumCookies / CookieJar.maximumCookiesPerDomain + 1
        for site in 0..<sites {
            let headers = (0..<CookieJar.maximumCookiesPerDomain).map { "c\($0)=v" }
            jar.store(setCookieHeaders: headers, from: try url("https://site\(site).example/"), now: now)
        }
        #expect(jar.allCookies.count == CookieJar.maximumCookies)
        #expect(try header(jar, "https://site0.example/") == nil)  // the oldest site's went first
        #expect(try header(jar, "https://site1.example/")?.hasPrefix("c0=v; c1=v") == true)
    }

    @Test func aDeepHostGetsTheCookiesOfEveryDomainAboveIt() throws {
        let jar = CookieJar()
        jar.store(setCookieHeaders: ["top=1; Domain=example.com"], from: try url("https://example.com/"), now: now)
        jar.store(setCookieHeaders: ["mid=2; Domain=b.example.com"], from: try url("https://b.example.com/"), now: now)
        jar.store(setCookieHeaders: ["own=3"], from: try url("https://a.b.example.com/"), now: now)
        #expect(try header(jar, "https://A.B.Example.COM/x") == "top=1; mid=2; own=3")
        #expect(try header(jar, "https://b.example.com/") == "top=1; mid=2")
        #expect(try header(jar, "https://xb.example.com/") == "top=1")
    }

    @Test(arguments: [
        ("127.0.0.1", true), ("255.255.255.255", true), ("::1", true), ("[::1]", true), ("0.0.0.0", true),
        ("256.1.1.1", false), ("1.2.3", false), ("1.2.3.4.5", false), ("1..3.4", false), ("1234.1.1.1", false),
        ("example.com", false), ("1.2.3.a", false), ("", false),
    ])
    func ipAddressesAreRecognised(_ host: String, _ isIP: Bool) {
        #expect(CookieRules.isIPAddress(host) == isIP)
    }

    @Test func combinedHeadersSplitAtCookiesNotAtDates() {
        let combined = "a=1; Expires=Wed, 21 Oct 2065 07:28:00 GMT; Path=/, b=2, c=3; Max-Age=5"
        #expect(
            SetCookie.split(combined: combined) == [
                "a=1; Expires=Wed, 21 Oct 2065 07:28:00 GMT; Path=/", "b=2", "c=3; Max-Age=5",
            ]
        )
    }

    @Test func manyTasksCanUseOneJar() async throws {
        let jar = CookieJar()
        let origin = try url("https://example.com/")
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                group.addTask {
                    jar.store(setCookieHeaders: ["k\(index % 10)=\(index)"], from: origin)
                    _ = jar.cookieHeader(for: origin)
                }
            }
        }
        #expect(jar.allCookies.count == 10)
    }
}

@Suite struct HTTPDateTests {
    static let instant = Date(timeIntervalSince1970: 1_445_412_480)  // Wed, 21 Oct 2015 07:28:00 GMT
    static let now = Date(timeIntervalSince1970: 1_800_000_000)  // 2027

    @Test(arguments: [
        "Wed, 21 Oct 2015 07:28:00 GMT", "Wednesday, 21-Oct-15 07:28:00 GMT", "Wed Oct 21 07:28:00 2015",
        "21 Oct 2015 7:28:00", "Wed, 21-Oct-2015 07:28:00 GMT",
    ])
    func cookieDatesParseLeniently(_ text: String) {
        #expect(HTTPDate.parseCookieDate(text) == Self.instant)
    }

    @Test(arguments: [
        "", "Wed, 31 Feb 2015 07:28:00 GMT", "Wed, 21 Oct 2015 25:28:00 GMT", "21 Oct 1500 07:28:00",
        "Wed, 21 Foo 2015 07:28:00 GMT", "tomorrow",
    ])
    func invalidCookieDatesDoNotParse(_ text: String) {
        #expect(HTTPDate.parseCookieDate(text) == nil)
    }

    /// RFC 9110 §5.6.7: the three formats, and nothing else.
    @Test(
        arguments: [
            ("Wed, 21 Oct 2015 07:28:00 GMT", instant), ("Wednesday, 21-Oct-15 07:28:00 GMT", instant),
            ("Wed Oct 21 07:28:00 2015", instant), ("wed, 21 oct 2015 07:28:00 gmt", instant),
            ("Sun Nov  6 08:49:37 1994", Date(timeIntervalSince1970: 784_111_777)),
            ("Sunday, 06-Nov-94 08:49:37 GMT", Date(timeIntervalSince1970: 784_111_777)),
            // Two-digit years: more than 50 years ahead of 2027 is the past century.
            ("Friday, 01-Jan-77 00:00:00 GMT", Date(timeIntervalSince1970: 3_376_684_800)),
            ("Thursday, 01-Jan-78 00:00:00 GMT", Date(timeIntervalSince1970: 252_460_800)),
            ("Wed, 21 Oct 2015 07:28:00 UTC", nil), ("21 Oct 2015 07:28:00 GMT", nil),
            ("Wed, 21 Oct 15 07:28:00 GMT", nil), ("Wed, 21-Oct-2015 07:28:00 GMT", nil),
            ("Wed, 21 Oct 2015 7:28:00 GMT", nil), ("Wed, 31 Feb 2015 07:28:00 GMT", nil),
            ("Wed Oct 21 07:28:00 15", nil), ("Wed,  21 Oct 2015 07:28:00 GMT", nil), ("0", nil), ("", nil),
            ("tomorrow", nil), ("Wed, 21 Oct 2015 07:28:00 GMT trailing", nil),
        ] as [(String, Date?)]
    )
    func httpDatesParseInTheirThreeFormatsOnly(_ text: String, _ expected: Date?) {
        #expect(HTTPDate.parse(text, now: Self.now) == expected, "\(text)")
    }

    @Test func anInvalidRetryAfterDateIsNoDelay() {
        let now = Self.instant
        let valid: HTTPFields = [.retryAfter: "Wed, 21 Oct 2015 07:28:30 GMT"]
        #expect(Retry.serverDelay(valid, now: now) == .seconds(30))
        let invalid: HTTPFields = [.retryAfter: "in a while"]
        #expect(Retry.serverDelay(invalid, now: now) == nil)
    }
}
