#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads dates in headers, by the rule of each header:
///
/// - ``parse(_:now:)``: an HTTP-date of RFC 9110 §5.6.7 (`Retry-After`, `Date`, `Last-Modified`,
///   `Expires`): exactly one of its three formats, anything else `nil`. What an invalid date means
///   is the caller's rule (an invalid `Expires` is already expired, an invalid `Retry-After` is
///   no delay).
/// - ``parseCookieDate(_:)``: a cookie's `Expires`, by the lenient algorithm of RFC 6265 §5.1.1
///   (an invalid one leaves the attribute out).
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let days = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    private static let longDays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    /// An HTTP-date in one of the three formats of RFC 9110 §5.6.7, or `nil`:
    /// `Sun, 06 Nov 1994 08:49:37 GMT` (IMF-fixdate), `Sunday, 06-Nov-94 08:49:37 GMT` (RFC 850;
    /// a two-digit year more than 50 years ahead is taken as the past century's), and
    /// `Sun Nov  6 08:49:37 1994` (asctime). Day and month names are read case-insensitively.
    static func parse(_ text: String, now: Date = Date()) -> Date? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false).map { $0.lowercased() }
        // IMF-fixdate: day-name "," SP 2DIGIT SP month SP 4DIGIT SP time SP "GMT"
        if parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","), days.contains(String(parts[0].dropLast())),
            parts[5] == "gmt", parts[1].count == 2, parts[3].count == 4,
            let day = Int(asciiDigits: parts[1]), let month = months.firstIndex(of: parts[2]),
            let year = Int(asciiDigits: parts[3])
        {
            return date(year: year, month: month + 1, day: day, time: parts[4])
        }
        // RFC 850: day-name-l "," SP 2DIGIT "-" month "-" 2DIGIT SP time SP "GMT"
        if parts.count == 4, parts[0].hasSuffix(","), longDays.contains(String(parts[0].dropLast())),
            parts[3] == "gmt"
        {
            let date = parts[1].split(separator: "-", omittingEmptySubsequences: false)
            guard date.count == 3, date[0].count == 2, date[2].count == 2, let day = Int(asciiDigits: date[0]),
                let month = months.firstIndex(of: String(date[1])), let shortYear = Int(asciiDigits: date[2])
            else { return nil }
            // RFC 9110: a year that would be more than 50 years in the future is in the past.
            let thisYear = Calendar(identifier: .gregorian).component(.year, from: now)
            var year = thisYear / 100 * 100 + shortYear
            if year > thisYear + 50 { year -= 100 }
            return self.date(year: year, month: month + 1, day: day, time: parts[2])
        }
        // asctime: day-name SP month SP ( 2DIGIT / ( SP DIGIT ) ) SP time SP 4DIGIT
        let compact = parts.filter { !$0.isEmpty }
        if compact.count == 5, days.contains(compact[0]), let month = months.firstIndex(of: compact[1]),
            compact[2].count <= 2, let day = Int(asciiDigits: compact[2]), compact[4].count == 4,
            let year = Int(asciiDigits: compact[4]),
            text.count == 24
        {
            return date(year: year, month: month + 1, day: day, time: compact[3])
        }
        return nil
    }

    /// `HH:MM:SS` on the day, in UTC, or `nil` when either does not exist.
    private static func date(year: Int, month: Int, day: Int, time: String) -> Date? {
        let clock = time.split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }), let hour = Int(asciiDigits: clock[0]),
            let minute = Int(asciiDigits: clock[1]), let second = Int(asciiDigits: clock[2])
        else { return nil }
        return validDate(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// The date, or `nil` for one that does not exist (31 February, 25:00) or is before 1601.
    private static func validDate(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Date? {
        guard (1...31).contains(day), year >= 1601, hour <= 23, minute <= 59, second <= 60 else { return nil }
        var components = DateComponents()
        (components.year, components.month, components.day) = (year, month, day)
        (components.hour, components.minute, components.second) = (hour, minute, min(second, 59))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        // Reject dates that do not exist (31 February) instead of rolling them over.
        guard let date = calendar.date(from: components), calendar.component(.day, from: date) == day else {
            return nil
        }
        return date
    }

    /// A cookie's `Expires` by RFC 6265 §5.1.1: tokens in any order, two-digit years, or `nil`.
    static func parseCookieDate(_ text: String) -> Date? {
        var time: (Int, Int, Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        for token in tokens(text) {
            if time == nil, let parsed = parseTime(token) {
                time = parsed
            } else if day == nil, let number = leadingDigits(token, 1...2) {
                day = number
            } else if month == nil, let index = months.firstIndex(of: String(token.prefix(3)).lowercased()) {
                month = index + 1
            } else if year == nil, let number = leadingDigits(token, 2...4) {
                year = number
            }
        }
        guard var year, let day, let month, let (hour, minute, second) = time, second <= 59 else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        return validDate(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// Splits on the delimiters of §5.1.1: everything but digits, letters and `:`.
    private static func tokens(_ text: String) -> [Substring] {
        text.split { character in
            !(character.isASCII && (character.isLetter || character.isNumber || character == ":"))
        }
    }

    /// 1 to `digits` leading digits (then anything but a digit), as a number.
    private static func leadingDigits(_ token: Substring, _ digits: ClosedRange<Int>) -> Int? {
        let prefix = token.prefix { $0.isASCII && $0.isNumber }
        guard digits.contains(prefix.count) else { return nil }
        return Int(prefix)
    }

    /// `h[h]:m[m]:s[s]`, anything after the seconds' digits ignored.
    private static func parseTime(_ token: Substring) -> (Int, Int, Int)? {
        let parts = token.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count <= 2, parts[1].count <= 2,
            let hour = leadingDigits(parts[0], 1...2), let minute = leadingDigits(parts[1], 1...2),
            let second = leadingDigits(parts[2], 1...2)
        else { return nil }
        return (hour, minute, second)
    }
}
