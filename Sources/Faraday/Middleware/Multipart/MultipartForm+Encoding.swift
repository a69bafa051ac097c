import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension MultipartForm {
    /// The form as a request body: a replayable stream of known length.
    ///
    /// Files are checked now (they must exist and be readable regular files) and read in chunks
    /// each time the body is sent; a file whose size changed by then fails the upload rather
    /// than sending a body of the wrong length.
    ///
    /// - Throws: ``FaradayError/Code/encodingFailed`` for an invalid boundary or an unreadable file.
    public func encoded() throws(FaradayError) -> RequestBody {
        try validateBoundary()
        var segments: [Segment] = []
        func appendBytes(_ data: Data) {
            if case .bytes(let previous) = segments.last {
                segments[segments.count - 1] = .bytes(previous + data)
            } else {
                segments.append(.bytes(data))
            }
        }
        for part in parts {
            appendBytes(Data("--\(boundary)\r\n".utf8) + part.headerBlock)
            switch part.content {
            case .bytes(let data): appendBytes(data)
            case .file(let url): segments.append(.file(url, length: try Segment.fileLength(url)))
            }
            appendBytes(Data("\r\n".utf8))
        }
        appendBytes(Data("--\(boundary)--\r\n".utf8))
        let length = segments.reduce(0) { $0 + $1.length }
        let body = segments
        return .stream(length: length) { SegmentChunks(segments: body) }
    }

    private func validateBoundary() throws(FaradayError) {
        let allowed = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=? ")
        guard (1...70).contains(boundary.count), boundary.allSatisfy(allowed.contains), boundary.last != " " else {
            throw FaradayError(
                .encodingFailed,
                "The multipart boundary \"\(boundary)\" is not valid: RFC 2046 allows 1 to 70 letters, digits and '()+_,-./:=? (no trailing space)."
            )
        }
    }
}

extension MultipartForm.Part {
    /// `Content-Disposition`, `Content-Type` and the part's own headers (which replace generated
    /// ones of the same name), then the blank line.
    var headerBlock: Data {
        var disposition = "form-data; name=\"\(Self.escaped(name))\""
        if let filename { disposition += "; filename=\"\(Self.escaped(filename))\"" }
        var fields = HTTPFields()
        fields[.contentDisposition] = disposition
        if let contentType { fields[.contentType] = contentType }
        fields = fields.merging(headers)
        var block = ""
        for field in fields { block += "\(field.name): \(field.value)\r\n" }
        return Data((block + "\r\n").utf8)
    }

    /// Quotes, CR and LF percent-encoded as browsers do (WHATWG multipart/form-data), so a
    /// hostile name cannot end the header or add one.
    static func escaped(_ value: String) -> String {
        value.replacingEvery("\"", with: "%22")
            .replacingEvery("\r", with: "%0D")
            .replacingEvery("\n", with: "%0A")
    }
}
