import Logging
import ServiceLifecycle
import UnixSignals

/// Keeps `serve` running on SIGHUP and says why nothing reloads: the configuration and API keys
/// are read once, at start. Unhandled, SIGHUP ended the process at once, without a graceful stop (a
/// `kill -HUP`, as a unit's reload command often sends, or a closed terminal took the service down).
struct HangupNotice: Service {
    let logger: Logger
    /// SIGHUP, trapped when `serve` begins, so one that comes before this service runs is held for it.
    let hangups: UnixSignalsSequence

    func run() async throws {
        // Ends with the graceful stop, so the group does not wait out its grace period for it.
        await cancelWhenGracefulShutdown {
            for await _ in hangups {
                logger.warning(
                    "SIGHUP ignored: serve reads its configuration and API keys only at start; restart it (SIGTERM, then start it again) to apply a change"
                )
            }
        }
    }
}
