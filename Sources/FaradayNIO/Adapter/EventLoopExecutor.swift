#if NIO
import NIOCore

/// One event loop as a task executor: a task that prefers it runs its code on the loop's thread,
/// where the loop's connections deliver their bytes, instead of hopping to Swift's global pool.
/// swift-nio 2.101 ships none; Hummingbird 2 writes its own the same way.
package final class EventLoopExecutor: Sendable {
    /// The loop whose thread runs the jobs.
    package let loop: any EventLoop

    package init(loop: any EventLoop) { self.loop = loop }
}

@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
extension EventLoopExecutor: TaskExecutor {
    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
#endif
