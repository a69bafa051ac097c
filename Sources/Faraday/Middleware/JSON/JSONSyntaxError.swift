#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a text is not JSON, and where reading stopped: what ``DecodeJSON`` reports (as the
/// underlying error of ``FaradayError/Code/parsingFailed``) for a body RFC 8259 does not accept.
///
/// ```
/// line 1, column 4 (byte 3): expected a value, found ']'
/// ```
///
/// Faraday's parser accepts exactly the JSON texts of RFC 8259 (every `y_` case of JSONTestSuite)
/// and refuses the rest (every `n_` case), whatever the platform's `JSONDecoder` tolerates. Where
/// the RFC leaves the choice open:
/// - a UTF-8 byte-order mark at the start is skipped; UTF-16 and UTF-32 texts are refused;
/// - a repeated member name keeps its first value, as `JSONDecoder` does;
/// - a whole number that does not fit `Int` becomes a `Double`, a number that underflows becomes
///   zero, and a number beyond `Double`'s range (`1e400`) is refused;
/// - lone surrogate escapes (`"\uD800"`) and invalid UTF-8 in strings are refused;
/// - nesting deeper than 512 levels is refused.
public struct JSONSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The offset in bytes, from 0, where reading stopped.
    public let offset: Int
    /// The line of ``offset``, from 1.
    public let line: Int
    /// The column of ``offset`` in bytes, from 1.
    public let column: Int
    /// What is wrong there.
    public let reason: String

    /// `line L, column C (byte B): reason`.
    public var description: String { "line \(line), column \(column) (byte \(offset)): \(reason)" }

    init(reason: String, offset: Int, in bytes: UnsafeRawBufferPointer) {
        let before = bytes.prefix(offset)
        let lastNewline = before.lastIndex(of: UInt8(ascii: "\n"))
        self.offset = offset
        self.line = 1 + before.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        self.column = offset - (lastNewline.map { $0 + 1 } ?? 0) + 1
        self.reason = reason
    }
}
