#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Request {
    /// The request as a `curl` command line (Alamofire's `cURLDescription`), with the secrets of
    /// `redaction` hidden. A body that is not in memory or not text is left out, with a note.
    public func curlCommand(redacting redaction: Redaction = Redaction()) -> String {
        var parts = ["curl", "-X", method.rawValue, Self.quoted(redaction.redacting(url))]
        for field in redaction.redact(headers) {
            parts += ["-H", Self.quoted("\(field.name): \(field.value)")]
        }
        var note = ""
        if let bytes = body.bytesInMemory, !bytes.isEmpty {
            if let text = redaction.redactBody(bytes, contentType: headers.contentType) {
                // --data-raw: with --data or --data-binary, a body starting with @ names a file
                // that curl would read and upload when the command is pasted.
                parts += ["--data-raw", Self.quoted(text)]
            } else {
                note = "  # binary body of \(bytes.count) bytes left out"
            }
        } else if !body.isEmpty {
            note = "  # streamed body\(body.length.map { " of \($0) bytes" } ?? "") left out"
        }
        return parts.joined(separator: " ") + note
    }

    /// `text` in single quotes for a POSIX shell.
    private static func quoted(_ text: String) -> String {
        "'" + text.replacingEvery("'", with: "'\\''") + "'"
    }
}
