/// A content coding ``Decompression`` reads: gzip and deflate always (zlib is part of every
/// build), `br` and `zstd` where the system's libbrotlidec and libzstd are installed.
enum ContentCoding: String, CaseIterable, Sendable {
    case gzip
    case deflate
    case brotli = "br"
    case zstd

    /// The coding a `Content-Encoding` value names (`x-gzip` is gzip), or `nil` for one this
    /// middleware does not know.
    init?(_ value: String) {
        let name = value.trimmingHTTPWhitespace.lowercasedASCII
        guard let coding = name == "x-gzip" ? .gzip : ContentCoding(rawValue: name) else { return nil }
        self = coding
    }

    /// Whether this build can decode it here.
    var isAvailable: Bool {
        switch self {
        case .gzip, .deflate: true
        case .brotli: BrotliDecompressor.library != nil
        case .zstd: ZstdDecompressor.library != nil
        }
    }

    /// The codings this build can decode here, as `Accept-Encoding` offers them.
    static let acceptEncoding = allCases.filter(\.isAvailable).map(\.rawValue).joined(separator: ", ")

    /// A decompressor for one body.
    func makeDecompressor() throws(FaradayError) -> any Decompressor {
        switch self {
        case .gzip: ZlibDecompressor(gzip: true)
        case .deflate: ZlibDecompressor(gzip: false)
        case .brotli: try BrotliDecompressor()
        case .zstd: try ZstdDecompressor()
        }
    }
}
