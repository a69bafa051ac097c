import Faraday
import FaradayAsyncHTTPClient
import FaradayHAL
import FaradayNIO
import FaradayTestSupport
import Foundation

/// The parsers fuzzed with libFuzzer (`Scripts/fuzz.sh`), each a function of arbitrary bytes.
///
/// A target must never crash, hang or grow without bound on any input; where a parser has a
/// property that must hold for every input (rendering what it read reads back the same), the
/// target checks it with `precondition`, so that a violation is a finding like a crash. The same
/// functions replay the committed corpus and every past finding in `FuzzCorpusTests`.
public enum FuzzTarget: String, CaseIterable, Sendable {
    case params
    case cookies
    case multipart
    case framers
    case hal
    case uriTemplate
    case errorDocument
    case der

    /// Runs the target on one input.
    public func run(_ data: Data) {
        switch self {
        case .params: Self.params(data)
        case .cookies: Self.cookies(data)
        case .multipart: Self.multipart(data)
        case .framers: Self.framers(data)
        case .hal: Self.hal(data)
        case .uriTemplate: Self.uriTemplate(data)
        case .errorDocument: _ = FaradayError.ErrorDocument(parsing: data)
        case .der: Self.der(data)
        }
    }

    /// The nested and flat query decoders: what one decodes, it encodes into a query that decodes
    /// to the same parameters.
    private static func params(_ data: Data) {
        let query = String(decoding: data, as: UTF8.self)
        let encoders: [any ParamsEncoder] = [NestedParamsEncoder(), FlatParamsEncoder()]
        for encoder in encoders {
            guard let params = try? encoder.decode(query), let again = try? encoder.decode(encoder.encode(params))
            else {
                continue
            }
            precondition(
                (try? encoder.decode(encoder.encode(again))) == again,
                "\(type(of: encoder)) is not stable on \(query.debugDescription)"
            )
        }
    }

    /// The `Set-Cookie` parser and the jar's matching: any header, stored from a URL, then asked
    /// for by that URL and others.
    private static func cookies(_ data: Data) {
        let jar = CookieJar()
        let headers = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        for url in urls { jar.store(setCookieHeaders: headers.map(String.init), from: url) }
        for url in urls { _ = jar.cookieHeader(for: url) }
    }

    private static let urls = [
        "https://api.example.com/v1/users", "http://example.com/", "https://127.0.0.1:8443/a/b", "https://co.uk/",
        "https://bank.com./", "https://a.b.kawasaki.jp/",
    ].compactMap(URL.init(string:))

    /// The test server's streaming multipart reader, fed in two pieces cut where the first byte
    /// says.
    private static func multipart(_ data: Data) {
        guard let first = data.first else { return }
        var reader = MultipartReader(boundary: "fuzz-boundary")
        let body = data.dropFirst()
        let cut = body.startIndex + Int(first) % (body.count + 1)
        reader.consume(Data(body[..<cut]))
        reader.consume(Data(body[cut...]))
        _ = reader.finish()
    }

    /// Every built-in framer, fed the input in chunks cut where its bytes say: no frame is ever
    /// longer than the limit.
    private static func framers(_ data: Data) {
        let limit = 256
        for kind in [Streaming.lines, .ndjson, .serverSentEvents, .jsonSequence] {
            var streaming = kind
            streaming.maxFrameSize = limit
            var framer = streaming.makeFramer()
            var frames: [Frame] = []
            do {
                var offset = data.startIndex
                while offset < data.endIndex {
                    let length = 1 + Int(data[offset]) % 64
                    let end = data.index(offset, offsetBy: length, limitedBy: data.endIndex) ?? data.endIndex
                    frames += try framer.frames(from: Data(data[offset..<end]))
                    offset = end
                }
                frames += try framer.finish()
            } catch {
                continue  // a frame past the limit is a typed error, as it should be
            }
            let longest = frames.map(\.body.count).max() ?? 0
            precondition(longest <= limit, "a frame of \(longest) bytes passed the \(limit)-byte limit of \(streaming)")
        }
    }

    /// The HAL reader: a document it reads renders to JSON that reads back the same.
    private static func hal(_ data: Data) {
        guard let document = try? Representation(data: data) else { return }
        let rendered = try? Representation(json: document.json)
        precondition(rendered == document, "a HAL document does not survive rendering")
        for relation in document.relations {
            _ = document.links(relation)
            _ = document.embedded(relation)
            _ = document.expandedRelation(relation)
        }
    }

    /// Faraday's DER reader (`TLSCertificate`, used by the core and URLSessionAdapter) against
    /// swift-certificates (used by AsyncHTTPClientAdapter): any certificate the latter reads, the
    /// former reads too, to the same `SubjectPublicKeyInfo` bytes; the PEM reader takes the same
    /// bytes as text.
    private static func der(_ data: Data) {
        let bytes = Array(data)
        let ours = try? TLSCertificate(der: bytes)
        if let theirs = try? TLSCertificate(x509: bytes) {
            precondition(
                ours?.subjectPublicKeyInfo == theirs.subjectPublicKeyInfo,
                "the DER reader and swift-certificates disagree on a certificate's public key"
            )
        }
        if let ours { precondition(ours.der == bytes, "the DER reader changed the bytes") }
        _ = try? TLSCertificate.certificates(pem: String(decoding: data, as: UTF8.self))
    }

    /// The RFC 6570 parser and expander, with variables of every kind.
    private static func uriTemplate(_ data: Data) {
        guard let template = try? URITemplate(String(decoding: data, as: UTF8.self)) else { return }
        _ = template.variableNames
        _ = try? template.expand([
            "var": "value", "hello": "Hello World!", "empty": "", "path": "/foo/bar", "x": "1024",
            "list": ["red", "green", "blue"], "keys": ["semi": ";", "dot": ".", "comma": ","],
        ])
        _ = try? template.expand([:])
    }
}
