#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Observes the life of calls through ``Instrumentation`` (Alamofire's `EventMonitor`): every
/// method has an empty default, so implement only what you need.
///
/// Events of one call arrive in order: ``callStarted(_:)``, then for each attempt
/// ``attemptStarted(_:attempt:)`` (when a ``Retry`` is below) with ``retryScheduled(_:attempt:delay:)``
/// between attempts, ``redirected(_:to:)`` for each redirect followed (when a
/// ``FollowRedirects`` is below), ``responseHeadReceived(_:response:)`` (with
/// ``cacheAnswered(_:status:)`` after it when an ``HTTPCache`` is below),
/// ``chunkReceived(_:index:bytes:)`` for each frame of a stream, and ``callFinished(_:response:bytes:)``
/// or ``callFailed(_:error:)``. Methods are called on the task that runs the call: keep them quick.
public protocol EventMonitor: Sendable {
    /// The call entered the stack.
    func callStarted(_ call: CallInfo)
    /// An attempt is about to be sent (from 1).
    func attemptStarted(_ call: CallInfo, attempt: Int)
    /// An attempt failed and another follows after `delay`.
    func retryScheduled(_ call: CallInfo, attempt: Int, delay: Duration)
    /// A redirect is being followed.
    func redirected(_ call: CallInfo, to redirect: FollowRedirects.Redirect)
    /// The status and headers arrived (the body is empty here).
    func responseHeadReceived(_ call: CallInfo, response: ResponseData)
    /// What the ``HTTPCache`` below did for the call: answered from its store, revalidated, or
    /// went to the server.
    func cacheAnswered(_ call: CallInfo, status: CacheStatus)
    /// A frame of a streamed response arrived.
    func chunkReceived(_ call: CallInfo, index: Int, bytes: Int)
    /// The call ended with a response, `bytes` long.
    func callFinished(_ call: CallInfo, response: ResponseData, bytes: Int)
    /// The call failed.
    func callFailed(_ call: CallInfo, error: FaradayError)
}

extension EventMonitor {
    public func callStarted(_ call: CallInfo) {}
    public func attemptStarted(_ call: CallInfo, attempt: Int) {}
    public func retryScheduled(_ call: CallInfo, attempt: Int, delay: Duration) {}
    public func redirected(_ call: CallInfo, to redirect: FollowRedirects.Redirect) {}
    public func responseHeadReceived(_ call: CallInfo, response: ResponseData) {}
    public func cacheAnswered(_ call: CallInfo, status: CacheStatus) {}
    public func chunkReceived(_ call: CallInfo, index: Int, bytes: Int) {}
    public func callFinished(_ call: CallInfo, response: ResponseData, bytes: Int) {}
    public func callFailed(_ call: CallInfo, error: FaradayError) {}
}

/// Which call an event is about, and how long it has been running.
public struct CallInfo: Sendable {
    /// A number that tells the calls of a process apart: the same for every attempt of a call,
    /// and the `faraday.call.id` of ``HTTPLogger``'s lines.
    public let id: Int
    /// The request as it entered the layer that added the monitor (``Instrumentation``).
    public var request: Request { entered.request }
    /// The env as it entered that layer: one reference, where the request would be a copy of
    /// its every field for each event, heard or not.
    let entered: Env
    /// The time since the call entered that layer.
    public let elapsed: Duration
}

extension CallInfo: CustomReflectable {
    /// The call's number, request and elapsed time, as `print` and `dump` show a plain struct's.
    public var customMirror: Mirror {
        Mirror(self, children: ["id": id, "request": request, "elapsed": elapsed], displayStyle: .struct)
    }
}
