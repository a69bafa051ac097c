import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// A call, composed in one place: the verbs, then the request made from the connection's defaults
// (`makeRequest`), then the handle that runs it through the stack (`run`).

extension Connection {
    /// Starts a GET request. See ``run(method:_:resolution:params:headers:body:streaming:configure:)``.
    @discardableResult
    public func get(
        _ path: String = "",
        params: Params = Params(),
        headers: HTTPFields = HTTPFields(),
        streaming: Streaming? = nil,
        configure: ((inout Request) throws -> Void)? = nil
    ) -> Response {
        run(method: .get, path, params: params, headers: headers, streaming: streaming, configure: configure)
    }

    /// Starts a GET request (the original Swift Faraday spelling).
    @discardableResult
    public func get(path: String, configure: ((inout Request) throws -> Void)? = nil) -> Response {
        get(path, configure: configure)
    }

    /// Starts a HEAD request.
    @discardableResult
    public func head(
        _ path: String = "",
        params: Params = Params(),
        headers: HTTPFields = HTTPFields(),
        streaming: Streaming? = nil,
        configure: ((inout Request) throws -> Void)? = nil
    ) -> Response {
        run(method: .head, path, params: params, headers: headers, streaming: streaming, configure: configure)
    }

    /// Starts a DELETE request.
    @discardableResult
    public func delete(
        _ path: String = "",
        params: Params = Params(),
        headers: HTTPFields = HTTPFields(),
        streaming: Streaming? = nil,
        configure: ((inout Request) throws -> Void)? = nil
    ) -> Response {
        run(method: .delete, path, params: params, headers: headers, streaming: streaming, configure: configure)
    }

    /// Starts an OPTIONS request.
    @discardableResult
    public func options(
        _ path: String = "",
        params: Params = Params(),
        headers: HTTPFields = HTTPFields(),
        streaming: Streaming? = nil,
        configure: ((inout Request) throws -> Void)? = nil
    ) -> Response {
        run(method: .options, path, params: params, headers: headers, streaming: streaming, configure: configure)
    }

    /// Starts a TRACE request.
    @discardableResult
    public func trace(
        _ path: String = "",
        params: Params = Params(),
        headers: HTTPFields = HTTPFields(),
        streaming: Streaming? = nil,
        configure: ((inout Request) throws -> Void)? = nil
    ) -> Response {
        run(method: .trace, path, params: params, headers: headers, streaming: streaming, configure: configure)
    }

    /// Starts a POST request.
    @discardableResult
    public func post(
        _ path: String = "",
        params: Params = Params(),
        headers: HTTPFields = HTTPFields(),
        body: RequestBody = .empty,
        streaming: Streaming? = nil,
        configure: ((inout Request) throws -> Void)? = nil
    ) -> Response {
        run(
            method: .post,
            path,
            params: params,
            headers: headers,
            body: body,
            streaming: streaming,
            configure: configure
        )
    }

    /// Starts a PUT request.
    @discardableResult
    public func put(
        _ path: String = "",
        params: Params = Params(),
        headers: HTTPFields = HTTPFields(),
        body: RequestBody = .empty,
        streaming: Streaming? = nil,
        configure: ((inout Request) throws -> Void)? = nil
    ) -> Response {
        run(
            method: .put,
            path,
            params: params,
            headers: headers,
            body: body,
            streaming: streaming,
            configure: configure
        )
    }

    /// Starts a PATCH request.
    @discardableResult
    public func patch(
        _ path: String = "",
        params: Params = Params(),
        headers: HTTPFields = HTTPFields(),
        body: RequestBody = .empty,
        streaming: Streaming? = nil,
        configure: ((inout Request) throws -> Void)? = nil
    ) -> Response {
        run(
            method: .patch,
            path,
            params: params,
            headers: headers,
            body: body,
            streaming: streaming,
            configure: configure
        )
    }
}

extension Connection {
    /// Starts a request whose method is given as a string token (`"PURGE"`).
    ///
    /// An invalid method token gives a handle that fails with ``FaradayError/Code/invalidMethod``.
    @discardableResult
    public func run(
        method: String,
        _ path: String = "",
        params: Params = Params(),
        headers: HTTPFields = HTTPFields(),
        body: RequestBody = .empty,
        streaming: Streaming? = nil,
        configure: ((inout Request) throws -> Void)? = nil
    ) -> Response {
        guard let parsed = HTTPRequest.Method(method) else {
            let request = Request(method: .get, url: url ?? Self.placeholderURL)
            return Response(
                request: request,
                failure: FaradayError(.invalidMethod, "\(method.debugDescription) is not a valid HTTP method token.")
            )
        }
        return run(
            method: parsed,
            path,
            params: params,
            headers: headers,
            body: body,
            streaming: streaming,
            configure: configure
        )
    }
}

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
            from: defaults.snapshot
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
            if defaultParams.entries.isEmpty && params.entries.isEmpty {
                if let pathQuery { request.url = Self.withQuery(pathQuery, on: url) }
            } else {
                let fromPath = try request.options.paramsEncoder.decode(pathQuery ?? "")
                request.params = defaultParams.merging(fromPath).merging(params)
            }
        } catch {
            throw FaradayError.wrapping(error, request: request)
        }
        if isHome {
            // Asked again while the URL and the credential origins are unchanged (when the call
            // starts, by `Authorization`), `isToCredentialOrigin` compares them (an unchanged
            // list is one comparison of references) instead of taking the URL apart.
            request.homeURL = Request.HomeURL(url: request.url, credentialOrigins: request.options.credentialOrigins)
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

extension Connection {
    /// Starts a request with any method and returns its handle.
    ///
    /// - Parameters:
    ///   - method: the method.
    ///   - path: a path relative to ``url``, or a full http(s) URL; it may carry a query.
    ///   - resolution: how a leading `/` combines with the base path.
    ///   - params: query parameters, over the connection's and the path's.
    ///   - headers: headers, over the connection's.
    ///   - body: the request body.
    ///   - streaming: how to stream the response (one completion per frame), as
    ///     ``RequestOptions/streaming``; `nil` keeps the connection's choice (buffered by default).
    ///   - configure: changes the request once it is built.
    @discardableResult
    public func run(
        method: HTTPRequest.Method,
        _ path: String = "",
        resolution: PathResolution = .underBasePath,
        params: Params = Params(),
        headers: HTTPFields = HTTPFields(),
        body: RequestBody = .empty,
        streaming: Streaming? = nil,
        configure: ((inout Request) throws -> Void)? = nil
    ) -> Response {
        // One lock a call: the defaults, and the stack once the first call built it.
        let defaults = defaults.snapshot
        let (request, failure) = buildRequest(
            method: method,
            path,
            resolution: resolution,
            params: params,
            headers: headers,
            body: body,
            streaming: streaming,
            configure: configure,
            from: defaults
        )
        if let failure { return Response(request: request, failure: failure) }
        // Without `configure`, the request is as `makeRequest` made it from the defaults.
        guard configure == nil else { return run(consume request) }
        return send(consume request, stack: defaults.stack, start: nil)
    }

    /// The request the verbs send, and the error that stopped building it, if one did.
    func buildRequest(
        method: HTTPRequest.Method,
        _ path: String,
        resolution: PathResolution = .underBasePath,
        params: Params,
        headers: HTTPFields,
        body: RequestBody = .empty,
        streaming: Streaming?,
        configure: ((inout Request) throws -> Void)?,
        from defaults: Defaults? = nil
    ) -> (Request, FaradayError?) {
        var request: Request
        do {
            request = try makeRequest(
                method: method,
                path,
                resolution: resolution,
                params: params,
                headers: headers,
                body: body,
                from: defaults ?? self.defaults.snapshot
            )
        } catch {
            let unbuilt = Request(method: method, url: Self.placeholderURL)
            return (unbuilt, FaradayError.wrapping(error, request: unbuilt))
        }
        if let streaming { request.options.streaming = streaming }
        do {
            try configure?(&request)
        } catch {
            return (request, FaradayError.wrapping(error, request: request))
        }
        return (request, nil)
    }

    /// Sends a request you built (with ``makeRequest(method:_:resolution:params:headers:body:)`` or
    /// by hand) through the stack, and returns its handle. The connection's defaults are not
    /// applied again; its credential headers and parameters are taken out of a request that goes
    /// to another origin (``RequestOptions/credentialOrigins``).
    @discardableResult
    public func run(_ request: consuming Request) -> Response {
        run(request, start: nil)
    }

    /// ``run(_:)`` with `start` in place of a plain call of the stack: it calls the stack (once or
    /// several times) and returns the completions the handle hands out.
    func run(_ request: consuming Request, start: Response.Start?) -> Response {
        if let failure = request.pathFailure { return Response(request: request, failure: failure) }
        // One lock a request.
        let (origin, defaultHeaders, defaultParams) = defaults.withLock { ($0.origin, $0.headers, $0.params) }
        // A request built by hand is bound to the connection's origin too.
        if request.options.credentialOrigins.isEmpty { request.options.credentialOrigins = origin }
        // Again after `configure` and endpoints had their say on the URL and its origins.
        request.dropDefaultCredentials(defaultHeaders, params: defaultParams)
        return send(consume request, start: start)
    }

    /// Sends a request whose credentials are settled through the stack (`built`, when the caller
    /// has it already), and returns its handle.
    private func send(
        _ request: consuming Request,
        stack built: BuiltStack? = nil,
        start: Response.Start?
    ) -> Response {
        let stack: BuiltStack
        if let built {
            stack = built
        } else {
            do {
                stack = try builtStack()
            } catch {
                return Response(request: request, failure: error.attaching(request))
            }
        }
        var env = Env(request: consume request)
        env.bodyEncoders = stack.encoders
        return Response(startEnv: env, stack: stack, start: start)
    }
}
