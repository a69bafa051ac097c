extension Double {
    /// The number with `decimals` digits after the point, rounded to nearest (`%.1f`, `%.6f`),
    /// without Foundation's `String(format:)`.
    func fixed(_ decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(self) * scale).rounded()
        guard isFinite, scaled < 9e18 else { return "\(self)" }
        let units = UInt64(scaled)
        let whole = units / UInt64(scale)
        let fraction = String(units % UInt64(scale))
        let sign = self < 0 && units > 0 ? "-" : ""
        guard decimals > 0 else { return sign + String(whole) }
        return sign + String(whole) + "." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }
}

extension UInt8 {
    /// The byte as a percent-escape, `%` and two upper-case hexadecimal digits (`%2F`).
    var percentEscaped: String {
        let digits = Array("0123456789ABCDEF")
        return "%" + String(digits[Int(self >> 4)]) + String(digits[Int(self & 0x0F)])
    }
}
