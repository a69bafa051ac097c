import Foundation
import HTTPTypes

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
