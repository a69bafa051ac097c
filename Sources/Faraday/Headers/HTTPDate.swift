import Foundation

/// Reads HTTP dates leniently, by the cookie-date algorithm of RFC 6265 §5.1.1: the formats
/// servers send in `Expires` and `Retry-After` (`Wed, 21 Oct 2015 07:28:00 GMT`,
/// `Wednesday, 21-Oct-15 07:28:00 GMT`, `Wed Oct 21 07:28:00 2015`…), or `nil` when the date
/// is invalid.
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    static func parse(_ text: String) -> Date? {
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
        guard var year, let day, let month, let (hour, minute, second) = time else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard (1...31).contains(day), year >= 1601, hour <= 23, minute <= 59, second <= 59 else { return nil }
        var components = DateComponents()
        (components.year, components.month, components.day) = (year, month, day)
        (components.hour, components.minute, components.second) = (hour, minute, second)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        // Reject dates that do not exist (31 February) instead of rolling them over.
        guard let date = calendar.date(from: components), calendar.component(.day, from: date) == day else {
            return nil
        }
        return date
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
