import Logging
import ServiceLifecycle

/// Says that a graceful stop has begun, and how long requests in flight have: otherwise nothing is
/// logged between the signal and `stopped`, which can be seconds while a slow client is served.
///
/// Listed after the HTTP server, so the group, which stops its services last to first, tells it
/// first; it returns at once, and the server's own stop follows.
struct ShutdownNotice: Service {
    let logger: Logger
    let grace: Duration

    func run() async throws {
        // Returns when the stop begins; a cancellation (another service failed) says nothing.
        try? await gracefulShutdown()
        guard !Task.isCancelled else { return }
        logger.notice("stopping: no new connections; requests in flight have up to \(grace.components.seconds) s to finish")
    }
}
