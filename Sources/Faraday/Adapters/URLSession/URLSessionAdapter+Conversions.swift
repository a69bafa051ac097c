#if URLSession
import Foundation
import HTTPTypes

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// What URLSession is handed, and what it hands over as Faraday's types: the request's fields, the
// status, the response's fields (with what the platform decoded said), and its errors as
// `FaradayError` codes.
extension URLSessionAdapter {
    /// The HTTP version an ALPN protocol name stands for, as RFC 9110 names it (`"h2"` is `"2"`),
    /// or `nil` for a name that is no HTTP version.
    static func httpVersion(alpn name: String) -> String? {
        switch name.lowercased() {
        case "http/1.0": "1.0"
        case "http/1.1": "1.1"
        case "h2", "h2c": "2"
        case let name where name == "h3" || name.hasPrefix("h3-"): "3"
        default: nil
        }
    }

    /// The request's fields as one `URLRequest` dictionary, set at once (on Linux each `addValue`
    /// copies the dictionary and capitalizes the name): a repeated name's values joined with ","
    /// as `addValue` joins them, under the name as the request first spells it; the cookies joined
    /// into one `Cookie` field with "; " (`forEachJoiningCookies`); and `Accept-Encoding: identity`
    /// unless the request names an encoding (URLSession would otherwise ask for, and decode, gzip,
    /// deflate, br and zstd on its own). HTTPTypes has already made every value legal, which is
    /// what `addValue` checks.
    static func headerFields(_ headers: HTTPFields) -> [String: String] {
        var fields: [String: String] = [:]
        var keys: [String: String] = [:]  // a name's canonical form → the key its values are under
        fields.reserveCapacity(headers.count + 1)
        headers.forEachJoiningCookies { field in
            let name = field.name.canonicalName
            if let key = keys[name] {
                fields[key, default: ""] += "," + field.value
            } else {
                keys[name] = field.name.rawName
                fields[field.name.rawName] = field.value
            }
        }
        if keys[HTTPField.Name.acceptEncoding.canonicalName] == nil { fields["Accept-Encoding"] = "identity" }
        return fields
    }

    /// The status, with the standard reason phrase (URLSession gives none, and the adapters on
    /// SwiftNIO give the server's); a code outside 100...999 becomes 999 "Invalid".
    static func status(_ response: HTTPURLResponse) -> HTTPResponse.Status {
        let code = response.statusCode
        guard (100...999).contains(code) else { return HTTPResponse.Status(code: 999, reasonPhrase: "Invalid") }
        return HTTPResponse.Status(standardPhraseFor: code)
    }

    /// The response's fields, `Set-Cookie` split back into its fields, and the encoding the
    /// platform decoded taken off. `bodyStart` is the start of the body as the platform handed it
    /// over (the whole body, or its first part), for an encoding it may or may not decode.
    static func fields(_ response: HTTPURLResponse, bodyStart: Data?) -> HTTPFields {
        var fields = HTTPFields()
        for (key, value) in response.allHeaderFields {
            guard let key = key as? String, let name = HTTPField.Name(key), let value = value as? String else {
                continue
            }
            // Foundation joins repeated headers with commas; Set-Cookie must be split back.
            let values = name == .setCookie ? SetCookie.split(combined: value) : [value]
            for value in values { fields.append(HTTPField(name: name, value: value)) }
        }
        // URLSession has already decoded gzip, deflate and Brotli bodies, and zstd ones where the
        // platform can: say so, so that nothing decodes them twice and no length refers to the
        // encoded bytes.
        let isDecoded =
            switch platformDecoding(fields.singleValue(.contentEncoding)) {
            case .decoded: true
            // Every zstd frame starts with its magic number; a decoded document does not.
            case .decodedWherePlatformCan: !(bodyStart ?? Data()).starts(with: zstdMagic)
            case .asSent: false
            }
        if isDecoded {
            fields[.contentEncoding] = nil
            fields[.contentLength] = nil
        }
        return fields
    }

    /// How URLSession hands over a body with a `Content-Encoding`.
    enum PlatformDecoding {
        /// Decoded: gzip, deflate and Brotli, which Apple's URLSession and Linux's libcurl both
        /// decode; its `Content-Length` counts other bytes than those received.
        case decoded
        /// Decoded where the platform can (zstd: libcurl built with zstd decodes it, others hand
        /// the bytes over as sent); the body's first bytes tell which.
        case decodedWherePlatformCan
        /// As sent: any other encoding, or none.
        case asSent
    }

    static func platformDecoding(_ contentEncoding: String?) -> PlatformDecoding {
        switch contentEncoding?.trimmingHTTPWhitespace.lowercasedASCII {
        case "gzip", "x-gzip", "deflate", "br": .decoded
        case "zstd": .decodedWherePlatformCan
        default: .asSent
        }
    }

    /// The first four bytes of every zstd frame (RFC 8878 §3.1.1: 0xFD2FB528, little-endian).
    static let zstdMagic: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]

    /// The first bytes of a stream, read before its head is handed on.
    struct ReadAhead: Sendable {
        /// The parts read, joined; `nil` when none came.
        var parts: Data?
        /// Whether the stream ended while reading ahead.
        var ended: Bool

        /// Reads parts from `next` until at least `count` bytes are in hand or the stream ends.
        static func read(atLeast count: Int, from next: () async throws -> Data?) async throws -> ReadAhead {
            var ahead = ReadAhead(parts: nil, ended: false)
            while (ahead.parts?.count ?? 0) < count {
                guard let part = try await next() else {
                    ahead.ended = true
                    break
                }
                ahead.parts = (ahead.parts ?? Data()) + part
            }
            return ahead
        }

        /// The parts read ahead, then those of `next`, which is not asked again after an end
        /// read ahead.
        func followed(
            by next: @escaping @Sendable () async throws -> Data?
        ) -> @Sendable () async throws -> Data? {
            let held = Locked(self)
            return {
                let (part, ended) = held.withLock { ($0.parts.take(), $0.ended) }
                if let part { return part }
                return ended ? nil : try await next()
            }
        }
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
#endif
