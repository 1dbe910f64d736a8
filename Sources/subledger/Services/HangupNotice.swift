import Logging
import ServiceLifecycle
import UnixSignals

/// Keeps `serve` running on SIGHUP and says why nothing reloads: the configuration and API keys
/// are read once, at start. Unhandled, SIGHUP ended the process at once, without a graceful stop (a
/// `systemctl reload`, or a closed terminal, took the service down).
struct HangupNotice: Service {
    let logger: Logger

    func run() async throws {
        // Ends with the graceful stop, so the group does not wait out its grace period for it.
        await cancelWhenGracefulShutdown {
            for await _ in await UnixSignalsSequence(trapping: .sighup) {
                logger.warning(
                    "SIGHUP ignored: serve reads its configuration and API keys only at start; restart it (SIGTERM, then start it again) to apply a change"
                )
            }
        }
    }
}
