import Foundation
import HTTPTypes

/// The hosts a request may go to: a registered name or an IP literal, as the URL's `host` reads
/// once percent-decoded, which is what adapters resolve, connect to and put in `Host`.
///
/// `URL` accepts `http://evil%0d%0ax/`, whose host decodes to `evil\r\nx`: sent as it is, that
/// host would add header lines or a whole request (urllib3's CVE-2019-11236, Go's CVE-2019-9741).
/// A name longer than DNS allows would crash a SOCKS5 handshake, which holds its length in a byte.
/// So a host is refused, before anything is sent, when it holds a control character, a space or a
/// character the URL standard forbids in a host (`# % / : < > ? @ [ \ ] ^ |`), has an empty label,
/// a label over 63 bytes or more than 253 bytes in all; an IPv6 literal holds hex digits, `:` and
/// `.` only, and a zone after `%`.
enum HostCheck {
    /// Throws `invalidURL` when `url`'s host may not be sent to.
    static func check(_ url: URL, method: HTTPRequest.Method? = nil) throws(FaradayError) {
        if let problem = problem(with: url) {
            throw FaradayError(.invalidURL, problem, method: method, url: url)
        }
    }

    /// Why `url`'s host may not be sent to, or `nil` when it may.
    static func problem(with url: URL) -> String? {
        guard let host = url.host, !host.isEmpty else { return "The URL has no host." }
        let bytes = Array(host.utf8)
        let valid = bytes.contains(UInt8(ascii: ":")) ? isIPv6Literal(bytes) : isName(bytes)
        guard valid else {
            let shown = bytes.count > 300 ? String(decoding: bytes.prefix(64), as: UTF8.self) + "…" : host
            return
                "The URL's host \(shown.debugDescription) (\(bytes.count) bytes) is not a valid host name or IP address."
        }
        return nil
    }

    /// A registered name or an IPv4 address: labels of 1 to 63 bytes, 253 bytes in all (a last
    /// `.` aside), and no byte the URL standard forbids in a domain.
    private static func isName(_ bytes: [UInt8]) -> Bool {
        let name = bytes.last == UInt8(ascii: ".") ? bytes.dropLast() : bytes[...]
        guard name.count <= 253 else { return false }
        var label = 0
        for byte in name {
            if byte == UInt8(ascii: ".") {
                guard label > 0 else { return false }
                label = 0
                continue
            }
            guard isAllowedInName(byte) else { return false }
            label += 1
            guard label <= 63 else { return false }
        }
        return label > 0
    }

    /// The forbidden domain code points of the URL standard, without the non-ASCII bytes of an
    /// internationalized name: controls, space, delete and `# % / : < > ? @ [ \ ] ^ |`.
    private static func isAllowedInName(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x00...0x20, 0x7F: false
        case UInt8(ascii: "#"), UInt8(ascii: "%"), UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: "<"),
            UInt8(ascii: ">"), UInt8(ascii: "?"), UInt8(ascii: "@"), UInt8(ascii: "["), UInt8(ascii: "\\"),
            UInt8(ascii: "]"), UInt8(ascii: "^"), UInt8(ascii: "|"):
            false
        default: true
        }
    }

    /// An IPv6 literal as `URL.host` gives it (no brackets): hex digits, `:` and `.` (an
    /// embedded IPv4), then optionally `%` and a zone of unreserved characters.
    private static func isIPv6Literal(_ bytes: [UInt8]) -> Bool {
        let percent = bytes.firstIndex(of: UInt8(ascii: "%"))
        let address = bytes[..<(percent ?? bytes.endIndex)]
        guard address.count <= 45,
            address.allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") })
        else { return false }
        guard let percent else { return true }
        let zone = bytes[(percent + 1)...]
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
