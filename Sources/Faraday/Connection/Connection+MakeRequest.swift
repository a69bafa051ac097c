import Foundation
import HTTPTypes

extension Connection {
    /// Builds a request from the connection's defaults (URL, headers, params, options) and a
    /// path, as the verbs do, without sending it.
    ///
    /// - Throws: ``FaradayError/Code/invalidURL`` when the URL cannot be built.
    public func makeRequest(
        method: HTTPRequest.Method,
        _ path: String = "",
        resolution: PathResolution = .underBasePath,
        params: Params = Params(),
        headers: HTTPFields = HTTPFields(),
        body: RequestBody = .empty
    ) throws(FaradayError) -> Request {
        try makeRequest(
            method: method,
            path,
            resolution: resolution,
            params: params,
            headers: headers,
            body: body,
            from: defaults.withLock { $0 }
        )
    }

    /// ``makeRequest(method:_:resolution:params:headers:body:)`` from a snapshot of the defaults.
    func makeRequest(
        method: HTTPRequest.Method,
        _ path: String,
        resolution: PathResolution,
        params: Params,
        headers: HTTPFields,
        body: RequestBody,
        from defaults: Defaults
    ) throws(FaradayError) -> Request {
        var request = Request(
            method: method,
            url: defaults.url ?? Self.placeholderURL,
            headers: headers.isEmpty ? defaults.headers : defaults.headers.merging(headers),
            body: body,
            options: defaults.requestOptions
        )
        request.base = defaults.base
        let isHome: Bool
        do {
            let (url, pathQuery, isUnderBase) = try URLResolver.resolve(
                path,
                against: defaults.base,
                resolution: resolution
            )
            request.url = url
            // The connection's credential parameters (`api_key`…) stay on its origins, as its
            // credential headers do. A URL made under the base has the base's origin, the first
            // of the credential origins when there is one: nothing to parse or compare.
            isHome = (isUnderBase && !defaults.origin.isEmpty) || request.isToCredentialOrigin
            let defaultParams =
                isHome
                ? defaults.params
                : Params(defaults.params.filter { !Redaction.matches($0.name, Redaction.credentialNames) })
            if defaultParams.isEmpty && params.isEmpty {
                if let pathQuery { request.url = Self.withQuery(pathQuery, on: url) }
            } else {
                let fromPath = try request.options.paramsEncoder.decode(pathQuery ?? "")
                request.params = defaultParams.merging(fromPath).merging(params)
            }
        } catch {
            throw FaradayError.wrapping(error, request: request)
        }
        if isHome {
            request.noteIsToCredentialOrigin()
        } else {
            request.dropDefaultCredentials(defaults.headers, isToCredentialOrigin: false)
        }
        return request
    }

    private static func withQuery(_ query: String, on url: URL) -> URL {
        guard !query.isEmpty,
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else { return url }
        components.percentEncodedQuery = query
        return components.url ?? url
    }
}
