extension Response {
    /// Runs `body` (a consumer's run of the call) on the executor the adapter names for this
    /// call, when it names one and the call has not started: the stack, the adapter and the
    /// response's bytes then share a thread (see ``Adapter/preferredExecutor(for:)``).
    func onAdapterExecutor<T, Failure: Error>(
        _ body: () async throws(Failure) -> T
    ) async throws(Failure) -> T {
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *),
            let executor = adapterExecutor()
        {
            return try await withTaskExecutorPreference(executor, operation: body)
        }
        return try await body()
    }

    /// The adapter's executor for a call nobody has started; `nil` once it runs, so that a second
    /// consumer awaits where it is.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    private func adapterExecutor() -> (any TaskExecutor)? {
        let adapter = state.withLock { state -> (any Adapter)? in
            guard case .notStarted = state.phase else { return nil }
            return state.adapter
        }
        return adapter?.preferredExecutor(for: request)
    }
}
