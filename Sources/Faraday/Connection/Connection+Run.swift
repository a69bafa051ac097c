import Foundation
import HTTPTypes

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
        let defaults = defaults.withLock { $0 }
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
                from: defaults ?? self.defaults.withLock { $0 }
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
        return Response(startEnv: env, app: stack.app, adapter: stack.adapter, start: start)
    }
}
