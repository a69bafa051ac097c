/// Slow synchronous work (a large body's hooks, file I/O) moved off an adapter's executor.
///
/// A call whose adapter names an executor (``Adapter/preferredExecutor(for:)``, an event loop)
/// runs its stack on that executor's thread, which other connections share: a layer that blocks
/// it for milliseconds stalls them all. Work that may take that long runs through ``run(_:)``,
/// which hands it to Swift's global executor when the task prefers another one, and runs it in
/// place (no hop) otherwise.
package enum Offload {
    /// Bodies of at least this many bytes have their hooks (JSON decoding and the like) run off
    /// the adapter's executor: about a millisecond of decoding, against a hop of microseconds.
    package static let bodyThreshold = 256 * 1024

    /// Runs `work` off the task's preferred executor when it has one, else in place.
    package static func run<T, Failure: Error>(_ work: () throws(Failure) -> T) async throws(Failure) -> T {
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *),
            withUnsafeCurrentTask(body: { $0?.unownedTaskExecutor }) != nil
        {
            return try await withTaskExecutorPreference(globalConcurrentExecutor) { () async throws(Failure) -> T in
                try work()
            }
        }
        return try work()
    }
}
