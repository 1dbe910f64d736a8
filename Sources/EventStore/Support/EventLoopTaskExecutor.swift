import NIOCore

/// A task executor that runs jobs on one NIO event loop.
///
/// A task that prefers it (`withTaskExecutorPreference`) resumes on the loop that delivered the
/// database's answer, not on a thread of the global pool: a batch's statements follow one another
/// without a wait in the pool's queue behind the requests' signature checks.
public final class EventLoopTaskExecutor: TaskExecutor, Sendable {
    /// The loop the jobs run on.
    public let eventLoop: any EventLoop

    /// An executor on `eventLoop`.
    public init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
