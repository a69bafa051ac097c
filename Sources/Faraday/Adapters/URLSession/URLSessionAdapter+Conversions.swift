import Foundation
import HTTPTypes

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// What URLSession hands over, as Faraday's types: the status, the fields (with what the platform
// decoded said), and its errors as `FaradayError` codes.
extension URLSessionAdapter {
    /// The status; a code outside 100...999 becomes 999 "Invalid".
    static func status(_ response: HTTPURLResponse) -> HTTPResponse.Status {
        let code = response.statusCode
        guard (100...999).contains(code) else { return HTTPResponse.Status(code: 999, reasonPhrase: "Invalid") }
        return HTTPResponse.Status(code: code)
    }

    /// The response's fields, `Set-Cookie` split back into its fields, and the encoding the
    /// platform decoded taken off.
    static func fields(_ response: HTTPURLResponse) -> HTTPFields {
        var fields = HTTPFields()
        for (key, value) in response.allHeaderFields {
            guard let key = key as? String, let name = HTTPField.Name(key), let value = value as? String else {
                continue
            }
            // Foundation joins repeated headers with commas; Set-Cookie must be split back.
            let values = name == .setCookie ? SetCookie.split(combined: value) : [value]
            for value in values { fields.append(HTTPField(name: name, value: value)) }
        }
        // URLSession has already decoded gzip, deflate and Brotli bodies: say so, so that nothing
        // decodes them twice and no length refers to the encoded bytes.
        if isDecodedByURLSession(fields[.contentEncoding]) {
            fields[.contentEncoding] = nil
            fields[.contentLength] = nil
        }
        return fields
    }

    /// Whether URLSession hands over the body of a response with this `Content-Encoding` decoded
    /// (gzip, deflate and Brotli, which Apple's URLSession and Linux's libcurl both decode), so that
    /// its `Content-Length` counts other bytes than those received. zstd is not counted: not every
    /// platform decodes it, and a body marked decoded that is not would be silently wrong.
    static func isDecodedByURLSession(_ contentEncoding: String?) -> Bool {
        let encoding = contentEncoding?.trimmingHTTPWhitespace.lowercasedASCII
        return encoding == "gzip" || encoding == "x-gzip" || encoding == "deflate" || encoding == "br"
    }

    static func faradayError(_ error: any Error, request: Request) -> FaradayError {
        func make(_ code: FaradayError.Code, _ message: String) -> FaradayError {
            FaradayError(code, message, method: request.method, url: request.url, underlying: error)
        }
        switch error {
        case let error as FaradayError: return error.attaching(request)
        case is CancellationError: return make(.cancelled, "The request was cancelled.")
        case let error as URLError:
            switch error.code {
            case .cancelled: return make(.cancelled, "The request was cancelled.")
            case .timedOut: return make(.readTimeout, "The server did not answer within the read timeout.")
            case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
                .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
                .clientCertificateRequired:
                return make(.tlsFailure, "The TLS handshake failed: \(error.localizedDescription).")
            case .badServerResponse, .cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData:
                return make(.invalidResponse, "The server sent an invalid HTTP response.")
            case .badURL: return make(.invalidURL, "The URL cannot be requested.")
            case .unsupportedURL:
                // The URL was checked before sending; libcurl reports protocol violations this way.
                return make(.invalidResponse, "The server sent an invalid HTTP response.")
            default: return make(.connectionFailed, "The connection failed: \(error.localizedDescription).")
            }
        default:
            return make(.connectionFailed, "The request failed: \(error).")
        }
    }
}
