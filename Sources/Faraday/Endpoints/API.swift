import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A web API described once — its connection (base URL, middleware, adapter) and a base
/// endpoint with the headers, query, parameters and credentials every request shares — from
/// which typed endpoints are built and sent (the model of the Requests library).
///
/// ```swift
/// let connection = try Connection(url: "https://api.example.com/v1") { builder in
///     builder.use(RaiseError.Handler())
///     builder.adapter = URLSessionAdapter()
/// }
/// var base = Endpoint<Void>(decoder: .none)
/// base.headers[.init("X-App-Key")!] = "DEAD-BEEF"
/// let api = API(connection: connection, base: base.authenticated(with: .bearer(token)))
///
/// let user = try await api.send(api.get(.json(User.self), from: "users/1"))
/// try await api.send(api.post(.json(newUser), to: "users"))
/// ```
///
/// Everything runs through the connection's middleware stack. A 4xx or 5xx answer that no
/// middleware turned into an error fails with the same status error ``RaiseError`` raises,
/// unless ``validatesStatus`` is off, so a decoder never mistakes an error page for a resource.
public struct API: Sendable {
    /// The connection every endpoint is sent through.
    public let connection: Connection
    /// The endpoint every endpoint of this API derives from.
    public var base: Endpoint<Void>
    /// Whether ``send(_:)`` fails on 4xx and 5xx statuses (default `true`).
    public var validatesStatus: Bool

    /// Creates an API over a connection.
    public init(connection: Connection, base: Endpoint<Void> = Endpoint(decoder: .none), validatesStatus: Bool = true) {
        self.connection = connection
        self.base = base
        self.validatesStatus = validatesStatus
    }

    // MARK: Building endpoints

    /// A GET of a resource.
    public func get<Resource>(_ decoder: ResponseDecoder<Resource>, from path: String) -> Endpoint<Resource> {
        Endpoint(.get, path, decoder: decoder, base: base)
    }

    /// A HEAD request.
    public func head(_ path: String) -> Endpoint<Void> {
        Endpoint(.head, path, decoder: .none, base: base)
    }

    /// A DELETE whose response body is ignored.
    public func delete(_ path: String) -> Endpoint<Void> {
        Endpoint(.delete, path, decoder: .none, base: base)
    }

    /// A DELETE answered with a resource.
    public func delete<Resource>(_ decoder: ResponseDecoder<Resource>, at path: String) -> Endpoint<Resource> {
        Endpoint(.delete, path, decoder: decoder, base: base)
    }

    /// A POST whose response body is ignored.
    public func post(_ body: RequestBody, to path: String) -> Endpoint<Void> {
        post(body, to: path, expecting: .none)
    }

    /// A POST answered with a resource.
    public func post<Resource>(
        _ body: RequestBody,
        to path: String,
        expecting decoder: ResponseDecoder<Resource>
    ) -> Endpoint<Resource> {
        withBody(body, Endpoint(.post, path, decoder: decoder, base: base))
    }

    /// A PUT whose response body is ignored.
    public func put(_ body: RequestBody, to path: String) -> Endpoint<Void> {
        put(body, to: path, expecting: .none)
    }

    /// A PUT answered with a resource.
    public func put<Resource>(
        _ body: RequestBody,
        to path: String,
        expecting decoder: ResponseDecoder<Resource>
    ) -> Endpoint<Resource> {
        withBody(body, Endpoint(.put, path, decoder: decoder, base: base))
    }

    /// A PATCH whose response body is ignored.
    public func patch(_ path: String, with body: RequestBody) -> Endpoint<Void> {
        patch(path, with: body, expecting: .none)
    }

    /// A PATCH answered with a resource.
    public func patch<Resource>(
        _ path: String,
        with body: RequestBody,
        expecting decoder: ResponseDecoder<Resource>
    ) -> Endpoint<Resource> {
        withBody(body, Endpoint(.patch, path, decoder: decoder, base: base))
    }

    private func withBody<Resource>(_ body: RequestBody, _ endpoint: Endpoint<Resource>) -> Endpoint<Resource> {
        var endpoint = endpoint
        endpoint.body = body
        return endpoint
    }

    // MARK: Sending

    /// Sends an endpoint and decodes its response.
    ///
    /// - Throws: the call's ``FaradayError``; a status error for 4xx and 5xx answers (see
    ///   ``validatesStatus``); ``FaradayError/Code/parsingFailed`` when the decoder fails.
    public func send<Resource>(_ endpoint: Endpoint<Resource>) async throws(FaradayError) -> Resource {
        let env = try await response(for: endpoint).value
        if validatesStatus, let error = FaradayError.statusError(for: env) { throw error }
        return try endpoint.decoder.decode(env)
    }

    /// Starts an endpoint's call and returns the response handle, for streaming, callbacks or
    /// the raw env; the decoder is not applied.
    public func response<Resource>(for endpoint: Endpoint<Resource>) async throws(FaradayError) -> Response {
        var request = try connection.makeRequest(
            method: endpoint.method,
            endpoint.path,
            params: endpoint.query,
            headers: endpoint.headers
        )
        if let body = endpoint.body { request.body = body }
        try request.apply(endpoint.parameters)
        do {
            try endpoint.configure?(&request)
            if request.isToCredentialOrigin { try await endpoint.authentication?.authenticate(&request) }
        } catch {
            var wrapped = FaradayError.wrapping(error, request: request)
            if !(error is FaradayError) && wrapped.code == .unknown {
                wrapped.message = "Preparing the request failed: \(error)"
            }
            throw wrapped
        }
        return connection.run(request)
    }
}
