import HTTPTypes
import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Everything one request carries through the middleware stack.
///
/// On the way down an `Env` holds the ``request`` (method, URL, headers, body, options); on the
/// way up it also holds the ``response`` of one completion, or the ``error`` that ended the call.
/// Middleware can stash typed values in it with ``subscript(_:)``.
///
/// A streamed response produces one `Env` per frame (``phase`` is ``Phase/frame(_:)``) and then
/// a final one (``Phase/final``); a buffered response produces just the final one.
public struct Env: Sendable {
    /// The fields, behind one reference: an env is copied at every layer and every completion,
    /// and a copy is then one retain instead of one per reference among its fields. A change to
    /// an env that shares its storage copies the fields first (copy on write).
    private var storage: Storage

    private final class Storage: @unchecked Sendable {
        // `@unchecked Sendable`: the fields change only while one env alone holds the storage.
        // `@exclusivity(unchecked)`: every access goes through `Env`'s accessors, and a write
        // happens only to storage one env alone holds, so no write overlaps another access; the
        // runtime's per-access bookkeeping (which made each `_modify` frame too large to live on
        // the stack) is not needed.
        @exclusivity(unchecked) var fields: Fields

        init(_ fields: Fields) { self.fields = fields }
    }

    private struct Fields: Sendable {
        var request: Request
        var response: ResponseData?
        var error: FaradayError?
        var phase: Phase
        var cancellation: CancellationToken
        var extensions = Extensions()
        var bodyEncoders: [any BodyEncodingHandler] = []
    }

    /// Copies the fields before a change if another env shares them. Each accessor below calls it
    /// in its own `set` and `_modify`: a `_modify` that went through a shared `_modify` of all the
    /// fields nests two coroutines, whose frames are then allocated (three allocations more a GET).
    @inline(__always)
    private mutating func unshare() {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.fields) }
    }

    /// The request as it goes down the stack. Middleware may change it.
    public var request: Request {
        _read { yield storage.fields.request }
        set {
            unshare()
            storage.fields.request = newValue
        }
        _modify {
            unshare()
            yield &storage.fields.request
        }
    }
    /// The response of this completion: status, headers and this completion's body.
    public var response: ResponseData? {
        get { storage.fields.response }
        set {
            unshare()
            storage.fields.response = newValue
        }
        _modify {
            unshare()
            yield &storage.fields.response
        }
    }
    /// The error that ended the call, on the final completion of a failed call.
    public var error: FaradayError? {
        _read { yield storage.fields.error }
        set {
            unshare()
            storage.fields.error = newValue
        }
    }
    /// Which completion this is.
    public var phase: Phase {
        get { storage.fields.phase }
        set {
            unshare()
            storage.fields.phase = newValue
        }
    }
    /// The cancellation shared by every env of this call (or of this attempt; see ``forAttempt()``).
    public private(set) var cancellation: CancellationToken {
        get { storage.fields.cancellation }
        set {
            unshare()
            storage.fields.cancellation = newValue
        }
    }
    private var extensions: Extensions {
        _read { yield storage.fields.extensions }
        set {
            unshare()
            storage.fields.extensions = newValue
        }
        _modify {
            unshare()
            yield &storage.fields.extensions
        }
    }
    /// The body encoders of the stack, outermost first (``Env/encodeRequestBody()``).
    var bodyEncoders: [any BodyEncodingHandler] {
        get { storage.fields.bodyEncoders }
        set {
            unshare()
            storage.fields.bodyEncoders = newValue
        }
    }

    /// Creates an env for a request.
    public init(request: consuming Request, cancellation: CancellationToken = CancellationToken()) {
        storage = Storage(
            Fields(request: consume request, response: nil, error: nil, phase: .request, cancellation: cancellation)
        )
    }

    /// A typed value stashed by a middleware, keyed by a type of your own.
    ///
    /// ```swift
    /// enum RequestIDKey: EnvKey { typealias Value = String }
    /// env[RequestIDKey.self] = UUID().uuidString
    /// ```
    public subscript<Key: EnvKey>(_ key: Key.Type) -> Key.Value? {
        get { extensions[key] }
        set { extensions[key] = newValue }
    }

    /// The logger of this call, with the call's metadata: set by a layer that logs calls, and
    /// handed by the adapter to its HTTP client (AsyncHTTPClient logs its request and connection
    /// pool events through it), so that every line of the call carries the same metadata.
    public var logger: Logger? {
        get { self[LoggerKey.self] }
        set { self[LoggerKey.self] = newValue }
    }

    /// Stops the call: a streamed response stops after the current completion and the adapter stops
    /// reading; a call still in flight fails with ``FaradayError/Code/cancelled``.
    public func cancel() { cancellation.cancel() }

    /// `true` once the call has been cancelled.
    public var isCancelled: Bool { storage.fields.cancellation.isCancelled }

    /// This call's number in the process (from 1), the same for all its attempts.
    var callID: Int { storage.fields.cancellation.callID }

    /// A copy for one attempt of a call that a middleware may abandon (a retry, a redirect, an
    /// authentication challenge): cancelling the call still cancels the attempt, and
    /// ``Completions/discard()`` on the attempt's completions stops its transfer without
    /// cancelling the call.
    public func forAttempt() -> Env {
        forAttempt(sharesProgress: true)
    }

    /// ``forAttempt()``, with the attempt's transfer progress kept from the call's observers
    /// when `sharesProgress` is `false` (for a layer that reports progress of its own).
    func forAttempt(sharesProgress: Bool) -> Env {
        var attempt = self
        attempt.cancellation = cancellation.child(sharesProgress: sharesProgress)
        return attempt
    }

    /// `true` on the last completion of the call.
    public var isFinal: Bool { storage.fields.phase == .final }

    /// Whether the request's body needs ``Request/encodePendingBody()`` before an adapter sends
    /// it. Read part by part: a method called on `request` copies the whole request out of the
    /// storage first (about twenty reference counts).
    var requestHasPendingBody: Bool { storage.fields.request.body.isPending(with: storage.fields.request.headers) }

    /// The response status, once there is a response.
    public var status: HTTPResponse.Status? { storage.fields.response?.status }

    /// The response headers, empty until there is a response.
    public var responseHeaders: HTTPFields { storage.fields.response?.headers ?? HTTPFields() }

    /// The body of this completion: the whole body when buffered, one frame when streamed.
    public var body: Data { storage.fields.response?.body ?? Data() }
}

extension Env {
    /// Which completion of a call an ``Env`` is.
    public struct Phase: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: Hashable, Sendable {
            case request
            case frame(Int)
            case final
        }
        private let kind: Kind

        /// On the way down: no response yet.
        public static let request = Phase(kind: .request)
        /// The last completion of the call (the only one of a buffered response).
        public static let final = Phase(kind: .final)
        /// The frame at `index` (from 0) of a streamed response.
        public static func frame(_ index: Int) -> Phase { Phase(kind: .frame(index)) }

        /// The frame index, for frame completions.
        public var frameIndex: Int? {
            if case .frame(let index) = kind { return index }
            return nil
        }

        public var description: String {
            switch kind {
            case .request: "request"
            case .frame(let index): "frame(\(index))"
            case .final: "final"
            }
        }
    }
}

/// A key for a typed value that a middleware keeps in an ``Env``, in ``RequestOptions`` or in a
/// ``FaradayError``; the key is the type itself, private to the middleware that owns the value.
public protocol EnvKey {
    /// The type of the stored value.
    associatedtype Value: Sendable
}

/// Where ``Env/logger`` is kept.
private enum LoggerKey: EnvKey { typealias Value = Logger }

extension Env: CustomReflectable {
    /// The env's fields, ``error`` among them, as `print` and `dump` show a plain struct's.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "request": request, "response": response as Any, "error": error as Any, "phase": phase,
                "cancellation": cancellation, "extensions": extensions, "bodyEncoders": bodyEncoders,
            ],
            displayStyle: .struct
        )
    }
}
