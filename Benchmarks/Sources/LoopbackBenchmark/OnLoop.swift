import NIOCore
import NIOPosix

/// A task executor that runs jobs on one NIO event loop: a task that prefers it runs its code on the
/// loop's thread, where AsyncHTTPClient's callbacks arrive, instead of hopping to the global pool.
final class EventLoopTaskExecutor: TaskExecutor, @unchecked Sendable {
    let loop: any EventLoop

    init(loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// One executor per loop of the shared group, handed out in turn.
    static let all: [EventLoopTaskExecutor] = MultiThreadedEventLoopGroup.singleton.makeIterator().map {
        EventLoopTaskExecutor(loop: $0)
    }
    nonisolated(unsafe) static var turn = 0

    static func next() -> EventLoopTaskExecutor {
        turn &+= 1
        return all[turn % all.count]
    }
}
