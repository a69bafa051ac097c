import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The hosts a request may go to: a registered name or an IP literal, as the URL's `host` reads
/// once percent-decoded, which is what adapters resolve, connect to and put in `Host`.
///
/// `URL` accepts `http://evil%0d%0ax/`, whose host decodes to `evil\r\nx`: sent as it is, that
/// host would add header lines or a whole request (urllib3's CVE-2019-11236, Go's CVE-2019-9741).
/// A name longer than DNS allows would crash a SOCKS5 handshake, which holds its length in a byte.
/// So a host is refused, before anything is sent, when it holds a control character, a space or a
/// character the URL standard forbids in a host (`# % / : < > ? @ [ \ ] ^ |`), has an empty label,
/// a label over 63 bytes or more than 253 bytes in all; an IPv6 literal holds hex digits, `:` and
/// `.` as `inet_pton` reads them, and a zone after `%`.
enum HostCheck {
    /// Throws `invalidURL` when `url`'s host may not be sent to.
    static func check(_ url: URL, method: HTTPRequest.Method? = nil) throws(FaradayError) {
        if let problem = problem(with: url) {
            throw FaradayError(.invalidURL, problem, method: method, url: url)
        }
    }

    /// Why `url`'s host may not be sent to, or `nil` when it may.
    static func problem(with url: URL) -> String? {
        // A host without escapes (nearly all) is checked as the URL holds it, with no decoding
        // (`URL.host` costs about twice as much, and this runs on every call).
        guard let encoded = url.host(percentEncoded: true) else { return "The URL has no host." }
        let host = encoded.utf8.contains(UInt8(ascii: "%")) ? url.host ?? "" : encoded
        guard !host.isEmpty else { return "The URL has no host." }
        let bytes = host.utf8
        let valid = bytes.contains(UInt8(ascii: ":")) ? isIPv6Literal(host) : isName(bytes)
        guard valid else {
            let shown = bytes.count > 300 ? String(decoding: bytes.prefix(64), as: UTF8.self) + "…" : host
            return
                "The URL's host \(shown.debugDescription) (\(bytes.count) bytes) is not a valid host name or IP address."
        }
        return nil
    }

    /// A registered name or an IPv4 address: labels of 1 to 63 bytes, 253 bytes in all (a last
    /// `.` aside), and no byte the URL standard forbids in a domain.
    private static func isName(_ bytes: String.UTF8View) -> Bool {
        var count = 0
        var label = 0
        var endsWithDot = false
        for byte in bytes {
            count += 1
            guard count <= 254 else { return false }
            if byte == UInt8(ascii: ".") {
                guard label > 0 else { return false }  // an empty label
                label = 0
                endsWithDot = true
            } else {
                // The forbidden domain code points of the URL standard, without the non-ASCII
                // bytes of an internationalized name: controls, space, delete and
                // `# % / : < > ? @ [ \ ] ^ |`.
                switch byte {
                case 0x00...0x20, 0x7F, UInt8(ascii: "#"), UInt8(ascii: "%"), UInt8(ascii: "/"), UInt8(ascii: ":"),
                    UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "?"), UInt8(ascii: "@"), UInt8(ascii: "["),
                    UInt8(ascii: "\\"), UInt8(ascii: "]"), UInt8(ascii: "^"), UInt8(ascii: "|"):
                    return false
                default: break
                }
                label += 1
                endsWithDot = false
                guard label <= 63 else { return false }
            }
        }
        return (endsWithDot ? count - 1 : count) <= 253
    }

    /// An IPv6 literal as `URL.host` gives it (no brackets), as `inet_pton` reads it, then
    /// optionally `%` and a zone of unreserved characters.
    private static func isIPv6Literal(_ host: String) -> Bool {
        let parts = host.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false)
        var address = in6_addr()
        guard let first = parts.first, inet_pton(AF_INET6, String(first), &address) == 1 else { return false }
        guard parts.count == 2 else { return true }
        let zone = parts[1].utf8
        return !zone.isEmpty && zone.count <= 64
            && zone.allSatisfy {
                isHexDigit($0) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0 | 0x20)
                    || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_")
                    || $0 == UInt8(ascii: "~")
            }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
    }
}
