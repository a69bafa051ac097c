#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Turns a finished response into an endpoint's `Resource`: a small struct around a function, so
/// call sites read `.json(User.self)`, `.text`, `.data` or `.none`.
///
/// Write your own as a static member in an extension:
///
/// ```swift
/// extension ResponseDecoder where Resource == [String] {
///     static var lines: Self {
///         ResponseDecoder { env in (env.response?.text ?? "").split(separator: "\n").map(String.init) }
///     }
/// }
/// ```
public struct ResponseDecoder<Resource: Sendable>: Sendable {
    private let body: @Sendable (Env) throws -> Resource

    /// Creates a decoder from a function of the final env (``Env/response`` holds the status,
    /// headers and raw body). Errors it throws become ``FaradayError/Code/parsingFailed``.
    public init(_ decode: @escaping @Sendable (Env) throws -> Resource) {
        self.body = decode
    }

    /// Decodes the env, wrapping any failure as a parsing error that carries the response.
    func decode(_ env: Env) throws(FaradayError) -> Resource {
        do {
            return try body(env)
        } catch let error as FaradayError {
            throw error.attaching(env.request)
        } catch {
            throw .parsingFailed(
                "The response body could not be decoded as \(Resource.self)",
                env: env,
                underlying: error
            )
        }
    }
}

extension ResponseDecoder where Resource: Decodable {
    /// Decodes a JSON body. An empty body is `nil` when `Resource` is optional and a parsing
    /// error otherwise; a body of the wrong shape is a parsing error whose underlying
    /// `DecodingError` names the coding path.
    ///
    /// - Parameters:
    ///   - type: the type to decode.
    ///   - decoder: the decoder; by default the one ``DecodeJSON`` was configured with.
    public static func json(_ type: Resource.Type = Resource.self, decoder: JSONDecoder? = nil) -> Self {
        ResponseDecoder { env in
            let body = env.body
            if body.isEmpty {
                if let empty = (Resource.self as? any EmptyBodyRepresentable.Type)?.emptyBodyValue as? Resource {
                    return empty
                }
                throw FaradayError(
                    .parsingFailed,
                    "The response body is empty; expected JSON for \(Resource.self).",
                    method: env.request.method,
                    url: env.request.url,
                    response: env.response
                )
            }
            return try (decoder ?? env.jsonDecoder).decode(Resource.self, from: body)
        }
    }
}

extension ResponseDecoder where Resource == String {
    /// The body as text in its declared charset, as ``ResponseData/decodedText()`` reads it (a
    /// byte-order mark, else the `charset` of `Content-Type`, else UTF-8); bytes that are not
    /// valid in it are a parsing error.
    public static var text: Self {
        ResponseDecoder { env in
            do {
                return try env.response?.decodedText() ?? ""
            } catch let error as FaradayError {
                throw error.attaching(env.request)
            }
        }
    }

    /// The body as text in `encoding`; bytes that are not valid in it are a parsing error.
    public static func text(encoding: String.Encoding) -> Self {
        ResponseDecoder { env in
            guard let text = String(data: env.body, encoding: encoding) else {
                throw FaradayError(
                    .parsingFailed,
                    "The response body is not valid \(encoding) text.",
                    method: env.request.method,
                    url: env.request.url,
                    response: env.response
                )
            }
            return text
        }
    }
}

extension ResponseDecoder where Resource == Data {
    /// The raw body bytes.
    public static var data: Self { ResponseDecoder { $0.body } }
}

extension ResponseDecoder where Resource == Void {
    /// No resource: any body, empty or not, is accepted and ignored.
    public static var none: Self { ResponseDecoder { _ in () } }
}

/// Types that an empty response body decodes to (`Optional`, as `nil`).
protocol EmptyBodyRepresentable {
    static var emptyBodyValue: Self { get }
}

extension Optional: EmptyBodyRepresentable {
    static var emptyBodyValue: Self { nil }
}
