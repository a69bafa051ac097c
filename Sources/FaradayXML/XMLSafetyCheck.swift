#if XML
import Faraday
import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// What a response's XML may be before anything decodes it: the defences against hostile XML.
public struct XMLLimits: Sendable, Hashable {
    /// The largest document, in bytes.
    public var maximumSize: Int
    /// The deepest nesting of elements.
    public var maximumDepth: Int

    /// Creates limits; by default 16 MiB and 256 levels (libxml2's own default depth limit, deeper
    /// than any real document and shallow enough to decode without running out of stack).
    public init(maximumSize: Int = 16 << 20, maximumDepth: Int = 256) {
        self.maximumSize = maximumSize
        self.maximumDepth = maximumDepth
    }
}

/// Checks a document before XMLCoder reads it: no document type declaration (the place of the
/// entity declarations behind "billion laughs" expansion and external entities), no deeper
/// nesting or larger size than ``XMLLimits`` allows, and well-formed XML.
struct XMLSafetyCheck {
    let limits: XMLLimits

    /// Throws a `parsingFailed` (or `bodyTooLarge`) error naming what the document breaks.
    func check(_ document: Data) throws(FaradayError) {
        guard document.count <= limits.maximumSize else {
            throw FaradayError(
                .bodyTooLarge,
                "The XML document is \(document.count) bytes, more than the \(limits.maximumSize) allowed."
            )
        }
        if let problem = Self.unreadableEncoding(document) {
            throw FaradayError(
                .parsingFailed,
                "The XML document \(problem); it is refused rather than checked in an encoding it might not be in."
            )
        }
        if Self.prologDeclaresDocumentType(document) {
            throw FaradayError(
                .parsingFailed,
                "The XML document has a document type declaration (<!DOCTYPE …>), which can declare entities that expand without bound or read local files; such documents are refused."
            )
        }
        let delegate = WellFormednessCheck(maximumDepth: limits.maximumDepth)
        let parser = XMLParser(data: document)
        parser.delegate = delegate
        parser.shouldResolveExternalEntities = false
        // Linux's XMLParser recovers from some errors and returns `true` (and says nothing of an
        // unclosed root): the delegate's own count and first error decide.
        let parsed = parser.parse()
        if delegate.isTooDeep {
            throw FaradayError(
                .parsingFailed,
                "The XML document nests elements deeper than \(limits.maximumDepth) levels."
            )
        }
        if let problem = delegate.firstError ?? parser.parserError.map({ WellFormednessCheck.describe($0, parser) })
            ?? (parsed ? nil : "it could not be parsed")
            ?? (delegate.rootCount == 0 ? "it has no root element" : nil)
            ?? (delegate.depth != 0 ? "it ends before its elements close" : nil)
        {
            throw FaradayError(.parsingFailed, "The response body is not well-formed XML: \(problem).")
        }
    }

    /// Why the document's bytes cannot be checked as they will be parsed, if they cannot: the
    /// check reads ASCII (or UTF-16 after a byte-order mark), so a document in an encoding where
    /// `<!DOCTYPE` is other bytes (UTF-16 or UTF-32 without a mark, EBCDIC, UTF-7, which the
    /// parser would detect or be told of) is refused, and so is an XML declaration that the
    /// grammar does not read: the check never guesses at the encoding the parser will use.
    static func unreadableEncoding(_ document: Data) -> String? {
        let bytes = [UInt8](document)
        // UTF-16 after a byte-order mark: prologDeclaresDocumentType scans it as such.
        if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) { return nil }
        let text = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...]
        guard let first = text.first(where: { !isSpace($0) }) else { return nil }
        guard first == UInt8(ascii: "<"), !text.prefix(4).contains(0) else {
            return
                "does not start with \"<\" in an ASCII-compatible encoding (UTF-16 or UTF-32 without a byte-order mark, or EBCDIC)"
        }
        switch XMLDeclaration(text.drop(while: isSpace)) {
        case nil:
            return nil
        case .some(.unreadable):
            return "starts with an XML declaration (<?xml …?>) that does not follow XML's grammar"
        case .some(.read(encoding: nil)):
            return nil
        case .some(.read(encoding: let declared?)):
            guard let charset = Charset(label: declared),
                !["UTF-16LE", "UTF-16BE", "ISO-2022-JP", "replacement"].contains(charset.name)
            else { return "declares the encoding \"\(declared)\"" }
            return nil
        }
    }

    /// White space in XML's grammar (`S`): space, tab, CR and LF.
    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// Whether the prolog (what comes before the root element: the XML declaration, comments,
    /// processing instructions, whitespace) holds `<!DOCTYPE`. After the root element starts a
    /// `<!DOCTYPE` is not a declaration (it can only be text of a CDATA section or a comment), so
    /// the scan stops there.
    static func prologDeclaresDocumentType(_ document: Data) -> Bool {
        let bytes = [UInt8](document)
        if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) {
            // UTF-16 (after unreadableEncoding): a declaration anywhere is refused. The UTF-16LE
            // pattern is in UTF-16BE's bytes too, one byte later.
            return bytes.firstRange(of: Array("<\0!\0D\0O\0C\0T\0Y\0P\0E".utf8)) != nil
        }
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        func starts(_ text: String, at position: Int) -> Bool {
            bytes[position...].starts(with: text.utf8)
        }
        func skip(past terminator: String, from position: Int) -> Int? {
            bytes[position...].firstRange(of: Array(terminator.utf8))?.upperBound
        }
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D:
                index += 1
            case UInt8(ascii: "<"):
                if starts("<!DOCTYPE", at: index) { return true }
                if starts("<?", at: index) {
                    guard let next = skip(past: "?>", from: index + 2) else { return false }
                    index = next
                } else if starts("<!--", at: index) {
                    guard let next = skip(past: "-->", from: index + 4) else { return false }
                    index = next
                } else {
                    return false  // the root element
                }
            default:
                return false  // text before the root: not well-formed, which the parser reports
            }
        }
        return false
    }
}

/// Counts the depth and the root elements as the parser meets them, stops it past the depth
/// limit, and keeps the first error it reports.
private final class WellFormednessCheck: NSObject, XMLParserDelegate {
    let maximumDepth: Int
    private(set) var depth = 0
    private(set) var rootCount = 0
    private(set) var isTooDeep = false
    private(set) var firstError: String?

    init(maximumDepth: Int) {
        self.maximumDepth = maximumDepth
    }

    /// The parser's error, by its code and where it stopped (Linux gives no description).
    static func describe(_ error: any Error, _ parser: XMLParser) -> String {
        "parser error \((error as NSError).code) at line \(parser.lineNumber), column \(parser.columnNumber)"
    }

    func parser(
        _ parser: XMLParser,
        didStartElement elementName: String,
        namespaceURI: String?,
        qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        if depth == 0 { rootCount += 1 }
        depth += 1
        if depth > maximumDepth {
            isTooDeep = true
            parser.abortParsing()
        }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        depth -= 1
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        if firstError == nil { firstError = Self.describe(parseError, parser) }
    }

    func parser(_ parser: XMLParser, foundInternalEntityDeclarationWithName name: String, value: String?) {
        firstError = firstError ?? "it declares an entity"  // unreachable without a DTD; refused all the same
        parser.abortParsing()
    }
}
#endif
