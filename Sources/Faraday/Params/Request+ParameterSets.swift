#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Request {
    /// Merges and encodes parameter sets into this request, by HTTPTransport's rules:
    ///
    /// - Sets with the same encoding merge into one, later keys winning; pass a base request's
    ///   sets before the request's own so that the request's override them.
    /// - `url` parameters join the query string (over any query already in the URL).
    /// - `json` and `propertyList` both want the body: the one whose set came last wins.
    /// - A multipart form body (a file upload) ignores `json` sets and gets the `propertyList`
    ///   parameters as text parts after its own parts; any other body already set (a data
    ///   upload) ignores both.
    /// - `custom` encodings run last, in order, each with the merged parameters of its name.
    ///
    /// An empty set adds nothing. The body gets `Content-Type` `application/json` or
    /// `application/x-plist` unless the request has one.
    ///
    /// - Throws: ``FaradayError/Code/encodingFailed`` when a body cannot be encoded or a custom
    ///   encoding throws.
    public mutating func apply(_ sets: [ParameterSet]) throws(FaradayError) {
        var merged: [ParameterSet] = []
        var bodyEncoding: String?
        for set in sets {
            if let index = merged.firstIndex(where: { $0.encoding.key == set.encoding.key }) {
                let previous = merged[index]
                merged[index] = previous.merging(set)
                merged[index].encoding = set.encoding
            } else {
                merged.append(set)
            }
            if set.encoding.key == "json" || set.encoding.key == "propertyList" { bodyEncoding = set.encoding.key }
        }
        let json = merged.first { $0.encoding.key == "json" }
        let propertyList = merged.first { $0.encoding.key == "propertyList" }
        do {
            if let query = merged.first(where: { $0.encoding.key == "url" }) { params = params.merging(query.params) }
            if var form = body.value as? MultipartForm {
                // A file upload: JSON is ignored, property-list parameters become text parts.
                for name in propertyList?.names ?? [] {
                    form.append(.text(name, Self.formText(propertyList?[name] ?? .null)))
                }
                body = .multipart(form)
            } else if body.isEmpty && body.value == nil {
                // No upload: the body set that came last wins.
                if let set = bodyEncoding == "json" ? json : propertyList, !set.isEmpty { try encodeBody(set) }
            }
            for set in merged {
                if case .custom(_, let encode) = set.encoding.kind { try encode(&self, set) }
            }
        } catch let error as FaradayError {
            throw error.attaching(self)
        } catch {
            throw FaradayError(.encodingFailed, "A custom parameter encoding failed: \(error)", underlying: error)
                .attaching(self)
        }
    }

    /// Encodes a `json` or `propertyList` set as the body, with its content type.
    private mutating func encodeBody(_ set: ParameterSet) throws(FaradayError) {
        if set.encoding.key == "propertyList" {
            body = .bytes(try PropertyListBody(value: set.object).encoded(format: .xml))
            if !headers.contains(.contentType) { headers[.contentType] = EncodePropertyList.mediaType }
        } else {
            do {
                body = .bytes(try Self.sortedJSON(set.object))
            } catch {
                throw FaradayError(
                    .encodingFailed,
                    "The JSON parameters could not be encoded: \(error)",
                    underlying: error
                )
            }
            if !headers.contains(.contentType) { headers[.contentType] = "application/json" }
        }
    }

    /// A parameter as the text of a form part: strings as they are, anything else as JSON.
    private static func formText(_ value: JSON) -> String {
        if let string = value.string { return string }
        return (try? sortedJSON(value)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// JSON with sorted keys, so the same parameters always give the same bytes.
    private static func sortedJSON(_ value: JSON) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(value)
    }
}
