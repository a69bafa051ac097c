import Foundation

/// What the server's `/echo` route answers: the request as the server read it.
public struct Echo: Decodable, Sendable {
    /// The method.
    public let method: String
    /// The request target as sent (path and query).
    public let uri: String
    /// The path alone.
    public let path: String
    /// The header fields, in order, each `[name, value]`.
    public let headers: [[String]]
    /// The body as text.
    public let body: String
    /// The body's length in bytes.
    public let bodyLength: Int

    /// The values of a header, case-insensitively, with comma-joined values split apart.
    public func values(_ name: String) -> [String] {
        headers.filter { $0.first?.lowercased() == name.lowercased() }
            .flatMap { ($0.last ?? "").split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The first field of a header as it was sent, case-insensitively.
    public func value(_ name: String) -> String? {
        headers.first { $0.first?.lowercased() == name.lowercased() }?.last
    }
}
