extension StringProtocol {
    /// The text without the white space at its ends: the scalars with Unicode's White_Space
    /// property (spaces, tabs, line breaks), taken off scalar by scalar, as Foundation's
    /// `trimmingCharacters(in: .whitespacesAndNewlines)` does (a combining mark after a space
    /// stays).
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(String.UnicodeScalarView(scalars[first...last]))
    }
}

extension String {
    /// The string with every occurrence of `target` replaced by `replacement`, matched byte for
    /// byte in UTF-8 as Foundation's `replacingOccurrences(of:with:)` matches (code units, not
    /// `Character`s): `"\r"` is found inside `"\r\n"`, and a quote or a secret before a combining
    /// mark is found too, which a search by `Character` misses.
    func replacingEvery(_ target: String, with replacement: String) -> String {
        let pattern = Array(target.utf8)
        guard !pattern.isEmpty, utf8.count >= pattern.count else { return self }
        let source = Array(utf8)
        var output: [UInt8] = []
        output.reserveCapacity(source.count)
        var index = 0
        while index < source.count {
            if source.count - index >= pattern.count, source[index..<index + pattern.count].elementsEqual(pattern) {
                output += replacement.utf8
                index += pattern.count
            } else {
                output.append(source[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
