import EventStore
import Logging
import Prometheus
import ServiceLifecycle

/// Compares this instance's clock with PostgreSQL's at start-up and then every `interval` while
/// `serve` runs, and says when they come apart or back into step.
///
/// A clock that agreed at start-up can drift later (NTP stopped, a virtual machine resumed from a
/// pause), and the events it stamps would then sort out of order for `as_of` against other
/// instances' (see `ClockSkewCheck`). Each reading is also the gauge
/// `subledger_clock_ahead_of_database_seconds`, to alert on. On SQLite there is no other clock, and
/// the monitor ends at once.
struct ClockSkewMonitor: Service {
    /// How often the clocks are compared while `serve` runs.
    static let defaultInterval: Duration = .seconds(60)
    /// How often a difference that lasts is told again in the log.
    static let defaultRepeat: Duration = .seconds(3600)
    /// The gauge each reading sets.
    static let gaugeName = "subledger_clock_ahead_of_database_seconds"

    let store: any EventStore
    let registry: PrometheusCollectorRegistry
    let logger: Logger
    let interval: Duration
    let repeatWarning: Duration

    /// Makes the monitor; its gauge goes in `registry` at the first reading (none on SQLite).
    init(
        store: any EventStore, registry: PrometheusCollectorRegistry, logger: Logger,
        interval: Duration = Self.defaultInterval, repeatWarning: Duration = Self.defaultRepeat
    ) {
        self.store = store
        self.registry = registry
        self.logger = logger
        self.interval = interval
        self.repeatWarning = repeatWarning
    }

    /// What the log last said about the clocks.
    struct State: Sendable, Equatable {
        /// Whether it said they differ.
        var skewed = false
        /// When it last said so, on the monitor's clock.
        var warnedAt: ContinuousClock.Instant?
    }

    /// Reads the clocks now and every `interval` until a graceful stop (or a cancellation); returns
    /// at once when the store has no server clock.
    func run() async throws {
        // A graceful stop cancels the loop, whose wait then throws: the monitor ends quietly.
        try? await cancelWhenGracefulShutdown {
            var state = State()
            while let next = await check(after: state) {
                state = next
                try await Task.sleep(for: interval)
            }
        }
    }

    /// Takes one reading: sets the gauge, warns when the clocks differ by more than
    /// `ClockSkewCheck.toleranceMicros` (at once when they have just come apart, then every
    /// `repeatWarning`), and says when they are back in step. Nil when the store has no server
    /// clock; the state unchanged when the database could not be read (`/ready` says so).
    func check(after state: State) async -> State? {
        let reading: ClockReading?
        do {
            reading = try await store.readServerClock()
        } catch {
            logger.debug("could not read PostgreSQL's clock", metadata: ["error": "\(error)"])
            return state
        }
        guard let reading else { return nil }
        // The registry hands back the same gauge each time.
        registry.makeGauge(name: Self.gaugeName, help: "This instance's clock minus PostgreSQL's at the last reading, in seconds")
            .set(Double(reading.aheadOfServerMicros) / 1_000_000)
        let metadata: Logger.Metadata = [
            "clock_ahead_of_server_ms": "\(reading.aheadOfServerMicros / 1000)", "uncertainty_ms": "\(reading.uncertaintyMicros / 1000)",
        ]
        let now = ContinuousClock.now
        guard let warning = ClockSkewCheck.warning(reading) else {
            if state.skewed {
                logger.notice("this machine's clock is back within \(ClockSkewCheck.toleranceMicros / 1000) ms of PostgreSQL's", metadata: metadata)
            }
            return State()
        }
        if state.skewed, let warnedAt = state.warnedAt, now - warnedAt < repeatWarning {
            return state
        }
        logger.warning("\(warning)", metadata: metadata)
        return State(skewed: true, warnedAt: now)
    }
}
