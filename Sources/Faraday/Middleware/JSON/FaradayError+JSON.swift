#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension FaradayError {
    /// The response body as JSON, when there is one and it parses.
    public var bodyJSON: JSON? {
        guard let body = response?.body, !body.isEmpty else { return nil }
        return try? JSONDecoder().decodeJSONValue(from: body)
    }
}
